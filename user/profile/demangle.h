/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * C++ (Itanium "_Z"), Rust v0 ("_R") and legacy Rust ("_ZN...17h<hash>E")
 * symbol names demangled with libiberty's cplus_demangle (GNU binutils'
 * demangler), with parameters and qualifiers (DMGL_PARAMS | DMGL_ANSI).
 */
#ifndef SH_DEMANGLE_H
#define SH_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* @name demangled into @buf (cut to fit); false (and @buf untouched): not a mangled name. */
bool sym_demangle(const char *name, char *buf, size_t len);

#endif /* SH_DEMANGLE_H */
