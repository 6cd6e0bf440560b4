/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* C++ and Rust (v0, legacy) names demangled by libiberty's cplus_demangle, with parameters. */
#ifndef SH_DEMANGLE_H
#define SH_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* @name demangled into @buf (cut to fit); false (and @buf untouched): not a mangled name. */
bool sym_demangle(const char *name, char *buf, size_t len);

#endif /* SH_DEMANGLE_H */
