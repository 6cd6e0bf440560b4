#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Build the guest's initramfs for one extracted Debian kernel package.

    initramfs.py KERNEL_ROOT BUSYBOX INIT OUT

KERNEL_ROOT is the dpkg-deb -x tree (boot/, lib/modules/VERSION/). The
archive (newc cpio, gzip) holds a static busybox, INIT as /init, and the
modules the guest needs before its root is mounted (virtio PCI, virtio-9p,
the 9p file system), each with the modules it depends on, uncompressed
(busybox's insmod reads plain .ko files) and listed in load order in
/modules/order. Debian builds these as modules, so without them the guest
cannot reach the host's files. The dependencies come from each module's
own .modinfo "depends=" (the package ships no modules.dep: depmod runs at
install time, and this tree is never installed).
"""
import gzip
import lzma
import os
import sys

try:
    import zstandard  # optional: Debian's 6.12+ modules are xz, not zstd
except ImportError:
    zstandard = None

# What the init script needs, by module name; a module built into the
# kernel (modules.builtin) is simply not there to load.
WANTED = ["virtio_pci", "virtio_console", "9pnet_virtio", "9p"]


def read_module(path):
    """The module's ELF bytes, decompressed."""
    data = open(path, "rb").read()
    if path.endswith(".xz"):
        return lzma.decompress(data)
    if path.endswith(".zst"):
        if zstandard is None:
            sys.exit(f"initramfs: {path} is zstd-compressed: install python3-zstandard")
        return zstandard.ZstdDecompressor().decompressobj().decompress(data)
    if path.endswith(".gz"):
        return gzip.decompress(data)
    return data


def modinfo_depends(elf):
    """The "depends=" field of a module's .modinfo (NUL-separated key=value strings)."""
    i = elf.find(b"\0depends=")
    if i < 0:
        return []
    val = elf[i + len(b"\0depends="):elf.index(b"\0", i + 1)].decode()
    return [d for d in val.split(",") if d]


def module_index(moddir):
    """Module name (dashes as underscores) -> path of its file."""
    idx = {}
    for root, _, files in os.walk(moddir):
        for f in files:
            base = f
            for ext in (".xz", ".zst", ".gz"):
                if base.endswith(ext):
                    base = base[:-len(ext)]
            if base.endswith(".ko"):
                idx[base[:-3].replace("-", "_")] = os.path.join(root, f)
    return idx


def load_order(idx, builtin, wanted):
    """The wanted modules and their dependencies, each after what it depends on."""
    order, seen, elfs = [], set(), {}

    def visit(name, chain):
        name = name.replace("-", "_")
        if name in seen:
            return
        if name not in idx:
            if name in builtin:
                return
            sys.exit(f"initramfs: module {name} (needed by {' <- '.join(chain) or 'init'}) "
                     "is neither in the package nor built in")
        seen.add(name)
        elf = read_module(idx[name])
        for dep in modinfo_depends(elf):
            visit(dep, chain + [name])
        elfs[name] = elf
        order.append(name)

    for w in wanted:
        visit(w, [])
    return order, elfs


class Cpio:
    """A newc archive, written entry by entry."""

    def __init__(self):
        self.out, self.ino = bytearray(), 1

    def add(self, name, mode, data=b"", rdev=(0, 0)):
        hdr = "070701" + "".join(f"{v:08x}" for v in (
            self.ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(name) + 1, 0))
        self.ino += 1
        self.out += hdr.encode() + name.encode() + b"\0"
        self.out += b"\0" * (-len(self.out) % 4)
        self.out += data
        self.out += b"\0" * (-len(self.out) % 4)

    def finish(self):
        self.add("TRAILER!!!", 0)
        return bytes(self.out)


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: initramfs.py KERNEL_ROOT BUSYBOX INIT OUT")
    root, busybox, init, out = sys.argv[1:]
    versions = os.listdir(os.path.join(root, "lib/modules"))
    if len(versions) != 1:
        sys.exit(f"initramfs: want one kernel version under {root}/lib/modules, got {versions}")
    moddir = os.path.join(root, "lib/modules", versions[0])
    builtin = set()
    bpath = os.path.join(moddir, "modules.builtin")
    if os.path.exists(bpath):
        for line in open(bpath):
            builtin.add(os.path.basename(line.strip())[:-3].replace("-", "_"))
    order, elfs = load_order(module_index(moddir), builtin, WANTED)

    c = Cpio()
    for d in ("bin", "dev", "proc", "sys", "newroot", "modules", "tmp"):
        c.add(d, 0o040755)
    c.add("dev/console", 0o020600, rdev=(5, 1))  # replaced by devtmpfs; the kernel opens it before init
    c.add("bin/busybox", 0o100755, open(busybox, "rb").read())
    c.add("init", 0o100755, open(init, "rb").read())
    for name in order:
        c.add(f"modules/{name}.ko", 0o100644, elfs[name])
    c.add("modules/order", 0o100644, "".join(n + "\n" for n in order).encode())
    with open(out + ".tmp", "wb") as f:
        f.write(gzip.compress(c.finish(), compresslevel=1))
    os.rename(out + ".tmp", out)
    print(f"initramfs {out}: kernel {versions[0]}, modules {' '.join(order)}")


if __name__ == "__main__":
    main()
