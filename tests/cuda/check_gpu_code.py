"""Every GPU a user has: the shipped binaries carry machine code for each architecture of kerntime's
default list and its PTX (CMakeLists.txt, docs/building.md). The library (libkerntime.a: its
kernels, the flush, the blocking kernel, the clock check), the kerntime command (with the bundled
suite) and the Python module are read here, without a GPU: each translation unit's fat binary (an
ELF section .nv_fatbin of containers, each listing its entries' kind and architecture) must hold
sm_N machine code for every "N-real" or "N" entry of the list and compute_N PTX for every "N" or
"N-virtual" one. cuobjdump --list-elf/--list-ptx would say the same, but CUDA's packages do not
always carry it; these headers are all it reads.

The build passes the paths and the lists through the environment (tests/cuda/CMakeLists.txt);
`python3 check_gpu_code.py` run by hand reads the same variables."""

import os
import re
import struct
import unittest

FATBIN_MAGIC = 0xBA55ED50
ENTRY_PTX = 1
ENTRY_ELF = 2


class GpuCode:
    """One fat binary container: the machine code and PTX architectures of one .cu file."""

    def __init__(self, where):
        self.where = where
        self.machine_code = set()
        self.ptx = set()
        self.kernel = None


def elf_sections(data):
    """The sections of a 64-bit little-endian ELF file: {name: bytes}."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    entry_size, count, names_index = struct.unpack_from("<HHH", data, 0x3A)
    headers = []
    for i in range(count):
        name, kind, _flags, _address, offset, size = struct.unpack_from(
            "<IIQQQQ", data, shoff + i * entry_size)
        headers.append((name, kind, offset, size))
    _, _, names_offset, names_size = headers[names_index]
    names = data[names_offset:names_offset + names_size]
    sections = {}
    for name, kind, offset, size in headers:
        label = names[name:names.index(b"\0", name)].decode()
        sections[label] = b"" if kind == 8 else data[offset:offset + size]  # 8: SHT_NOBITS
    return sections


def archive_members(data):
    """The members of a GNU ar archive (a static library): [(name, bytes)]."""
    if data[:8] != b"!<arch>\n":
        raise ValueError("not an ar archive")
    members = []
    long_names = b""
    offset = 8
    while offset + 60 <= len(data):
        header = data[offset:offset + 60]
        name = header[:16].decode().rstrip()
        size = int(header[48:58].decode())
        body = data[offset + 60:offset + 60 + size]
        offset += 60 + size + (size & 1)
        if name == "//":
            long_names = body
        elif name.startswith("/") and name[1:].isdigit():
            start = int(name[1:])
            members.append((long_names[start:long_names.index(b"/\n", start)].decode(), body))
        elif name not in ("/", "/SYM64/"):
            members.append((name.rstrip("/"), body))
    return members


def fatbin_containers(section, where):
    """The containers of a .nv_fatbin section, one per .cu file linked in."""
    containers = []
    offset = 0
    magic = struct.pack("<I", FATBIN_MAGIC)
    while True:
        start = section.find(magic, offset)
        if start < 0:
            if section[offset:].strip(b"\0"):
                raise ValueError(f"{where}: bytes after the last fat binary container")
            return containers
        if section[offset:start].strip(b"\0"):
            raise ValueError(f"{where}: bytes between fat binary containers")
        _, header_size, body_size = struct.unpack_from("<IHHQ", section, start)[1:]
        code = GpuCode(f"{where}, fat binary {len(containers) + 1}")
        entry = start + header_size
        end = start + header_size + body_size
        while entry < end:
            kind, _, entry_header, payload = struct.unpack_from("<HHIQ", section, entry)
            (arch,) = struct.unpack_from("<I", section, entry + 0x1C)
            if kind == ENTRY_ELF:
                code.machine_code.add(arch)
                name = re.search(rb"\.text\.([A-Za-z_$][\w$]*)",
                                 section[entry + entry_header:entry + entry_header + payload])
                if name and code.kernel is None:
                    code.kernel = name.group(1).decode()
            elif kind == ENTRY_PTX:
                code.ptx.add(arch)
            entry += entry_header + payload
        containers.append(code)
        offset = end


def gpu_code_of(path):
    """Every fat binary container of an executable, a shared library or a static library."""
    with open(path, "rb") as f:
        data = f.read()
    name = os.path.basename(path)
    if data[:8] == b"!<arch>\n":
        found = []
        for member, body in archive_members(data):
            if body[:4] == b"\x7fELF":
                section = elf_sections(body).get(".nv_fatbin")
                if section:
                    found += fatbin_containers(section, f"{name}({member})")
        return found
    return fatbin_containers(elf_sections(data).get(".nv_fatbin", b""), name)


def required(cmake_list):
    """CMake's list ("80-real,86-real,...,120"): the machine code and the PTX it asks for."""
    machine_code, ptx = set(), set()
    for entry in re.split(r"[;,]", cmake_list):
        match = re.fullmatch(r"(\d+)(-real|-virtual)?", entry)
        if not match:
            raise ValueError(f"{entry!r} in {cmake_list!r} is not an architecture")
        if match.group(2) != "-virtual":
            machine_code.add(int(match.group(1)))
        if match.group(2) != "-real":
            ptx.add(int(match.group(1)))
    return machine_code, ptx


def missing(code, machine_code, ptx):
    """What a container lacks, e.g. "sm_86 sm_100 compute_120"; empty when nothing."""
    return " ".join([f"sm_{a}" for a in sorted(machine_code - code.machine_code)] +
                    [f"compute_{a}" for a in sorted(ptx - code.ptx)])


def hand_laid_container(entries):
    """A fat binary container as nvcc lays it out: (kind, arch) entries with a payload each."""
    body = b""
    for kind, arch in entries:
        payload = b".text._Z6kernelv\0" if kind == ENTRY_ELF else b"//ptx\0\0"
        header = struct.pack("<HHIQ", kind, 0x101, 64, len(payload)) + bytes(12)
        header += struct.pack("<I", arch) + bytes(64 - 32)
        body += header + payload
    return struct.pack("<IHHQ", FATBIN_MAGIC, 1, 16, len(body)) + body


class ReaderTest(unittest.TestCase):
    def test_a_hand_laid_container_reads_as_its_entries(self):
        section = hand_laid_container([(ENTRY_ELF, 80), (ENTRY_PTX, 120), (ENTRY_ELF, 120)])
        section += bytes(8) + hand_laid_container([(ENTRY_ELF, 90)])
        first, second = fatbin_containers(section, "hand-laid")
        self.assertEqual((first.machine_code, first.ptx, first.kernel), ({80, 120}, {120}, "_Z6kernelv"))
        self.assertEqual((second.machine_code, second.ptx), ({90}, set()))
        self.assertEqual(missing(second, *required("80-real,90-real,120")), "sm_80 sm_120 compute_120")
        self.assertEqual(missing(first, *required("80-real;120")), "")

    def test_the_list_is_read_as_cmake_reads_it(self):
        self.assertEqual(required("80-real,86-virtual,120"), ({80, 120}, {86, 120}))
        with self.assertRaises(ValueError):
            required("native")


class ShippedBinariesTest(unittest.TestCase):
    def setUp(self):
        self.list = os.environ.get("KERNTIME_REQUIRED_CUDA_ARCHITECTURES")
        if not self.list:
            self.skipTest("run by ctest, which names the binaries (tests/cuda/CMakeLists.txt)")
        self.machine_code, self.ptx = required(self.list)
        built = os.environ.get("KERNTIME_BUILT_CUDA_ARCHITECTURES", "")
        self.fix = ""
        if built != self.list:
            self.fix = (f"; this build was configured with CMAKE_CUDA_ARCHITECTURES="
                        f"{built.replace(',', ';')}, not kerntime's default "
                        f"({self.list.replace(',', ';')}): configure it afresh without it "
                        "(cmake --fresh --preset default, or -U CMAKE_CUDA_ARCHITECTURES)")

    def check(self, variable):
        path = os.environ.get(variable)
        if not path:
            self.skipTest(f"{variable} is not set: not built here")
        containers = gpu_code_of(path)
        self.assertTrue(containers, f"{path} holds no GPU code (.nv_fatbin)")
        for code in containers:
            with self.subTest(code.where):
                lacking = missing(code, self.machine_code, self.ptx)
                self.assertEqual(lacking, "", f"{code.where} (kernel {code.kernel}) lacks {lacking}: "
                                 f"a GPU that needs it cannot run it{self.fix}")

    def test_the_library_has_code_for_every_gpu_of_the_default_list(self):
        self.check("KERNTIME_LIBRARY")

    def test_the_command_and_its_suite_have_code_for_every_gpu_of_the_default_list(self):
        self.check("KERNTIME_COMMAND")

    def test_the_python_module_has_code_for_every_gpu_of_the_default_list(self):
        self.check("KERNTIME_PYTHON_MODULE")


if __name__ == "__main__":
    unittest.main()
