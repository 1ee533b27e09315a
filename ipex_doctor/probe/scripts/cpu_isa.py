"""Which x86 instruction sets this very process can execute, asked of the CPU with CPUID.

Run by the doctor in the examined interpreter (``python -I cpu_isa.py``); prints one JSON line:
``{"source": "cpuid", "vendor": ..., "brand": ..., "flags": [...], "os_xsave": ...}`` or
``{"source": null, "why": ...}`` when CPUID cannot be asked here (not x86-64, no executable
memory). Standard library only, any Python 3.

Why not /proc/cpuinfo: it describes the host kernel's view. Under an emulator (qemu-user) the
process runs on the emulated CPU while /proc/cpuinfo still lists the host's flags, and a
hypervisor or container may show flags the process cannot use. CPUID, executed by the process,
answers for the CPU the process runs on; XGETBV says whether the OS saves the AVX / AVX-512 /
AMX register state, without which the instructions fault even when CPUID lists them.

Why by hand: the examined interpreter has only the standard library (a CPUID package cannot be
assumed there), and running the instruction in *that* process is the point. The machine code is
two small functions (SysV x86-64 ABI), placed in an anonymous executable mapping.
"""

import ctypes
import json
import mmap
import platform
import sys
from typing import Any, Callable, Dict, List, Sequence, Tuple

# void cpuid(uint32 leaf, uint32 subleaf, uint32 out[4]):
#   push rbx; mov r8, rdx; mov eax, edi; mov ecx, esi; cpuid;
#   mov [r8], eax; mov [r8+4], ebx; mov [r8+8], ecx; mov [r8+12], edx; pop rbx; ret
_CPUID = bytes.fromhex("534989d089f889f10fa241890041895804418948084189500c5bc3")
# uint64 xgetbv0(void): xor ecx, ecx; xgetbv; shl rdx, 32; or rax, rdx; ret
_XGETBV = bytes.fromhex("31c90f01d048c1e2204809d0c3")

# (flag as /proc/cpuinfo names it, leaf, subleaf, register index eax=0 ebx=1 ecx=2 edx=3, bit)
_FEATURES = (
    ("sse4_2", 1, 0, 2, 20),
    ("fma", 1, 0, 2, 12),
    ("avx", 1, 0, 2, 28),
    ("f16c", 1, 0, 2, 29),
    ("avx2", 7, 0, 1, 5),
    ("avx512f", 7, 0, 1, 16),
    ("avx512dq", 7, 0, 1, 17),
    ("avx512bw", 7, 0, 1, 30),
    ("avx512vl", 7, 0, 1, 31),
    ("avx512_vnni", 7, 0, 2, 11),
    ("avx512_fp16", 7, 0, 3, 23),
    ("amx_bf16", 7, 0, 3, 22),
    ("amx_tile", 7, 0, 3, 24),
    ("amx_int8", 7, 0, 3, 25),
    ("avx_vnni", 7, 1, 0, 4),
    ("avx512_bf16", 7, 1, 0, 5),
    ("amx_fp16", 7, 1, 0, 21),
    ("avx_ne_convert", 7, 1, 3, 5),
)
_OSXSAVE = (1, 0, 2, 27)
_BRAND_LEAVES = (0x80000002, 0x80000003, 0x80000004)
"""The extended leaves that hold the brand string (leaf 0x80000000 says which exist)."""
# XCR0 state components the OS must enable: SSE+AVX (bits 1, 2), AVX-512 opmask and upper
# ZMM (bits 5-7), AMX tile config and data (bits 17, 18).
_XCR0_AVX = 0x6
_XCR0_AVX512 = 0xE0
_XCR0_AMX = 0x60000
_NEEDS_STATE = {
    "avx": _XCR0_AVX,
    "avx2": _XCR0_AVX,
    "fma": _XCR0_AVX,
    "f16c": _XCR0_AVX,
    "avx_vnni": _XCR0_AVX,
    "avx_ne_convert": _XCR0_AVX,
    "amx_tile": _XCR0_AMX,
    "amx_bf16": _XCR0_AMX,
    "amx_int8": _XCR0_AMX,
    "amx_fp16": _XCR0_AMX,
}


_PAGES: List[mmap.mmap] = []
"""The executable mappings: they must outlive every call into them."""


def _function(code: bytes, restype: Any, argtypes: Sequence[Any]) -> Callable[..., Any]:
    """``code`` as a callable in an executable anonymous mapping."""
    page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(code)
    _PAGES.append(page)
    address = ctypes.addressof(ctypes.c_char.from_buffer(page))
    function: Callable[..., Any] = ctypes.CFUNCTYPE(restype, *argtypes)(address)
    return function


def probe() -> Dict[str, Any]:
    """The answer as a dict (see the module docstring); never raises."""
    if platform.machine().lower() not in ("x86_64", "amd64") or sys.maxsize <= 2**32:
        return {"source": None, "why": "not an x86-64 process (%s)" % platform.machine()}
    if not hasattr(mmap, "PROT_EXEC"):
        return {"source": None, "why": "no executable memory mappings on this platform"}
    try:
        cpuid = _function(
            _CPUID, None, (ctypes.c_uint32, ctypes.c_uint32, ctypes.POINTER(ctypes.c_uint32))
        )
    except (OSError, ValueError, TypeError) as exc:
        return {"source": None, "why": "no executable memory: %s" % exc}

    def ask(leaf: int, subleaf: int = 0) -> Tuple[int, ...]:
        out = (ctypes.c_uint32 * 4)()
        cpuid(leaf, subleaf, out)
        return tuple(out)

    highest, b, c, d = ask(0)
    vendor = b"".join(r.to_bytes(4, "little") for r in (b, d, c)).decode("ascii", "replace")
    brand = ""
    if ask(_BRAND_LEAVES[0] & 0xFFFF0000)[0] >= _BRAND_LEAVES[-1]:
        # NOTE: the CPU's own name (under an emulator, the emulated model's), 48 bytes
        raw = b"".join(r.to_bytes(4, "little") for leaf in _BRAND_LEAVES for r in ask(leaf))
        brand = " ".join(raw.split(b"\0", 1)[0].decode("ascii", "replace").split())
    registers: Dict[Tuple[int, int], Tuple[int, ...]] = {}
    for _, leaf, subleaf, _, _ in _FEATURES:
        if leaf <= highest and (leaf, subleaf) not in registers:
            if leaf == 7 and subleaf == 1 and ask(7, 0)[0] < 1:
                continue  # NOTE: sub-leaf 1 exists only when leaf 7 says it does
            registers[(leaf, subleaf)] = ask(leaf, subleaf)

    def has(leaf: int, subleaf: int, register: int, bit: int) -> bool:
        values = registers.get((leaf, subleaf))
        return bool(values and values[register] >> bit & 1)

    os_xsave = has(*_OSXSAVE)
    xcr0: int = 0
    if os_xsave:
        try:
            xcr0 = _function(_XGETBV, ctypes.c_uint64, ())()
        except (OSError, ValueError, TypeError):
            os_xsave = False
    listed = [name for name, leaf, subleaf, reg, bit in _FEATURES if has(leaf, subleaf, reg, bit)]
    usable: List[str] = []
    for name in listed:
        state = _XCR0_AVX512 | _XCR0_AVX if name.startswith("avx512") else _NEEDS_STATE.get(name)
        if state is None or (os_xsave and xcr0 & state == state):
            usable.append(name)
    return {
        "source": "cpuid",
        "vendor": vendor,
        "brand": brand,
        "flags": usable,
        "listed_not_enabled": [name for name in listed if name not in usable],
        "os_xsave": os_xsave,
        "xcr0": xcr0,
    }


if __name__ == "__main__":
    try:
        answer = probe()
    except Exception as exc:  # noqa: BLE001 - the doctor falls back to /proc/cpuinfo
        answer = {"source": None, "why": "%s: %s" % (type(exc).__name__, exc)}
    sys.stdout.write(json.dumps(answer) + "\n")
