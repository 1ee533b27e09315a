"""explain against real error texts quoted from public trackers, part by part.

Four parts, read and scored as benchmarks/explain_accuracy.py reads and scores them (each text
expects a knowledge-base id, ``layer:<name>`` where no entry names its cause, or ``unrelated``
for a text outside the Intel stack):

* ``explain_corpus/development.yaml`` and ``explain_corpus/holdout.yaml``: texts sampled from
  public trackers collection by collection (``explain_corpus/sampling.yaml`` records how), each
  collection split by thread at random before any rule was changed for it
  (``tools/split_explain_corpus.py``); rules are changed from the development part alone, and the
  kept-aside part is measured once afterwards (then it has been seen, and joins development when
  the next collection is split);
* ``xpu_error_corpus.yaml`` and ``xpu_error_holdout.yaml``: the earlier collections, chosen
  by cause.

explain must stay at or above what was measured (first-ranked, top-3, right layer), and name
nothing (no entry, no layer) for a text outside the Intel stack: a false alarm is as bad as a
miss.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest
import yaml
from conftest import REPO

from ipex_doctor.knowledge import known_issues
from ipex_doctor.knowledge.known_issues import LAYERS
from ipex_doctor.knowledge.yamldoc import safe_loader

sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "tools"))
import explain_accuracy as accuracy  # noqa: E402
import split_explain_corpus as split  # noqa: E402

KNOWLEDGE = known_issues.load_files((), lambda _: None)
SAMPLING = REPO / "tests" / "assets" / "explain_corpus" / "sampling.yaml"
PARTS = {name: accuracy.cases(path) for name, path in accuracy.PARTS.items()}
MEASURED: dict[str, tuple[int, int, int, int, int, int] | None] = {
    # part: (related texts, first-ranked, top-3, right layer, unrelated texts, false alarms)
    # NOTE: with the sixth and seventh collections' kept-aside texts (measured once, then joined:
    # 138, 140, 143 and 1 alarm before the rules written from them: 151, 152, 156, 0), and the
    # eighth's and ninth's development texts (at the split: 168, 169, 174, 1 alarm: 182, 183, 187,
    # 0 after), and the eighth's and ninth's kept-aside texts (measured once: 14 of 30, 14, 17 and
    # 1 alarm of 68), which then joined (196, 197, 204 and 1 alarm of 400 before the rules written
    # from them: 204, 205, 211, 0), the tenth's development texts (at its split: 209, 211, 220;
    # 214, 216, 224 after the rules written from them) and the eleventh's (at its split: 222, 224,
    # 232, 1 alarm; 230, 232, 240, 0 after the rules written from both), and the tenth's and
    # eleventh's kept-aside texts (measured once: 9 of 20, 9, 10 and 0 alarms of 67), which then
    # joined (239, 241, 250 before the rules written from them: 246, 248, 255), and the twelfth's
    # development texts (at its split: 251, 254, 260) and the thirteenth's (at its split: 254, 257,
    # 264, 1 alarm; 256, 259, 266 after the rules written from both: the alarm, Vulkan-
    # ValidationLayers #11515, names llama.cpp's SYCL backend and an Intel iGPU beside Vulkan's
    # out-of-memory, and is left recorded rather than tuned away), and the twelfth's and
    # thirteenth's kept-aside texts (measured once: 8 of 17, 8, 11 and 3 alarms of 87), which then
    # joined with their alarms (264, 267, 277, 4 alarms before the rules written from them: 272,
    # 275, 282, 2 after; the two made exact: AutoAWQ's advice to use IPEX, OpenVINO's OpenCL code),
    # and the fourteenth's development texts (at its split: 280, 283, 291, 4 alarms; 283, 286, 293,
    # 3 after the rules written from them), and the fourteenth's kept-aside texts (measured once:
    # 2 of 6, 2, 2 and 1 alarm of 40), which then joined with their alarm (285, 288, 295, 4 alarms),
    # and the fifteenth's development texts (at its split: 287, 290, 297, 4 alarms; the two of
    # Intel's NPU, its Level Zero graph extension, made exact: 2 alarms; 289, 292, 299 after the
    # rules written from the fourteenth's measured texts; 296, 299, 306 after the exact signals
    # of the Intel stack written from the development texts that named no other Intel word), and
    # the fifteenth's kept-aside texts (measured once: 1 of 4, 1, 2 and 0 alarms of 34), which then
    # joined (290, 293, 301, 2 alarms before those signals; 291, 294, 303 after the two entries
    # written from them, their texts relabelled as sampling.yaml's `relabelled` records), and the
    # sixteenth's and seventeenth's development texts (at their split: 295, 298, 309, 2 alarms;
    # 297, 300, 309 after the rules written from them; 304, 307, 316 with the exact signals), and
    # the sixteenth's and seventeenth's kept-aside texts (measured once: 4 of 16, 4, 6 and 0
    # alarms of 19), which then joined (308, 311, 322, 2 alarms), and the npu layer: Intel's NPU
    # under PyTorch in the Intel stack, four texts of the NPU library relabelled from unrelated and
    # layer:driver (sampling.yaml's `relabelled`; 313, 316, 327, 2 alarms of 997), and layer
    # wording from the sixteenth's and seventeenth's measured texts (conda's install errors, DKMS,
    # a sub-group size, SYCL's integration header: 318, 321, 332), and three entries written from
    # development texts (torch's refused 4 GiB request as the per-allocation cap; the NPU
    # library's API called as another release defines it and the Compatibility Pack on Windows,
    # their four texts relabelled as sampling.yaml's `relabelled` records: 325, 328, 336), and the
    # nineteenth's development texts (at its split: 336, 339, 349 of 481, 2 alarms of 1035; 340,
    # 343, 353 after the rules written from them: the compute runtime's GPU HANG report, OMP Error
    # 15 as openmp-duplicate-runtime, its two texts relabelled; 341, 344, 353 with oneAPI.jl's
    # missing Level Zero loader), and the layer work merged beside them (bigdl, vLLM's
    # IpexAttnBackend, DPC++'s kernel compiler, a SYCL source's compile, Ollama's runner beside an
    # Intel word, IPEX's warning of a transformer optimised on the CPU: 324, 327, 338 of 459
    # alone; 347, 350, 359 of 481 together), then the nineteenth's kept-aside texts, measured once
    # (6, 6, 7 of 20; 0 of 20 alarms), joined it: 353, 356, 366 of 501, 2 of 1055; then two
    # entries written from development texts (IPEX imported where it is not installed; ipex.optimize
    # given a model partly offloaded), their five texts relabelled as sampling.yaml's `relabelled`
    # records: 356, 359, 369; 370 with OMP Error 15 read without its "OMP: " prefix; then the
    # twentieth's development texts (at its split: 362, 365, 378 of 527, 5 alarms of 1093); with
    # the layers' structural markers merged beside them (a kernel oops banner, sycl-ls's device
    # listing, Unified Runtime's and PI's library files, oneMKL's SYCL API, ProcessGroupXCCL,
    # Inductor's modules, every backend's build and link failure codes; 356, 359, 369 of 501
    # alone): 365, 368, 381 of 527; and an entry written from two of them (device enumeration
    # crashing beside Intel's Windows NPU driver 32.0.100.4723 or later), its two texts relabelled
    # as sampling.yaml's `relabelled` records, and OpenVINO's GPU plugin's own wording for the
    # per-allocation cap (365, 368, 381 alone): 368, 371, 384, 5 alarms; with the twentieth's
    # three layer alarms made exact beside them (a user account named intel in a home
    # directory's path is no Intel word; torch's list of device types in its device-string parse
    # error names no stack) and the twentieth's layer markers (OpenVINO's NPU plugin's Level Zero
    # report and its driver-version property, the Level Zero loader's Windows DLLs and an
    # assertion of ZE_RESULT_SUCCESS, AdaptiveCpp refusing -fsycl, IGC's SPIR-V reader; 375, 378,
    # 391, 2 alarms alone): 378, 381, 394 of 527, 2 alarms of 1093; then the twentieth's
    # kept-aside texts, measured once (2, 2, 3 of 12; 5 of 37 alarms), joined it: 380, 383, 397 of
    # 539, 7 alarms of 1130; with pytorch/vision #9077 (a torch/torchvision mismatch) labelled
    # torchvision-broken as the corpus's rule for torch install errors of any stack says (its
    # collector had it unrelated; sampling.yaml's `relabelled`): 381, 384, 398 of 540, 6 of 1129;
    # then, of the texts that named the wrong thing, those the NPU's own words place (a Level
    # Zero code said of the NPU, the NPU driver's source tree, OpenVINO's NPU plugin finding no
    # NPU or failing its Level Zero set-up) and torch's tensor factories with no XPU kernel (the
    # torch build, not one missing operator): 388, 391, 405; with ComfyUI #12476 (the compute
    # runtime's abort) labelled level-zero, as the table of layers places the compute runtime
    # (its collector had the kernel driver's layer; sampling.yaml's `relabelled`): 389, 392, 406
    # of 540, 6 of 1129; beside them, the npu layer's boundary decided (a failure raised by
    # Intel's NPU stack is of that layer whoever was at fault: eleven texts relabelled from
    # unrelated, sampling.yaml's `relabelled`; OpenVINO's NPU plugin, compiler and compiler
    # library by their own words, once stack.absent's, now the Intel stack's and the npu
    # layer's): 395, 398, 412 of 551, 2 of 1118 alone; then the twenty-first's development texts
    # (at its split: 413, 416, 431 of 587, 2 of 1163; 423, 426, 441 after the layer wording
    # written from them: apt's and dpkg's refusals of the stack's packages, Level Zero's library
    # files, chipStar's Level0, OpenVINO's NPU plugin library, AdaptiveCpp's "ze:" code); all of
    # it together: 429, 432, 447 of 587, 2 of 1163; then the twenty-first's kept-aside texts,
    # measured once (7, 7, 7 of 26; 0 of 21 alarms), joined it: 436, 439, 454 of 613, 2 of 1184;
    # then dnf's words for a repository's changed key, CMake not finding the SYCL runtime, Level
    # Zero initialised for the NPU alone: 439, 442, 457; then five texts of OUT_OF_RESOURCES and
    # DEVICE_NOT_AVAILABLE labelled as the corpus labels those codes elsewhere (sampling.yaml's
    # `relabelled`): 444, 447, 462; then the sycl-build / compiler boundary (a build by oneAPI's
    # DPC++/C++ compilers, and a device program IGC fails to build, is sycl-build; compiler is
    # torch.compile's code generation alone: two texts relabelled, and IGC's crash banner no
    # longer Triton's entry) and the layer markers of the OpenCL build, the compute runtime's
    # small-BAR warning, FFmpeg's OpenCL from VA-API, SYCLomatic and dpctl's library: 454, 457,
    # 471 of 613; beside them, the twenty-second's development texts (at its split, without the
    # above: 462, 465, 483 of 651, 2 of 1218) and the wording written from them (oneAPI's
    # compilers refused by CMake's check and IPEX's XPU build configured by its setup.py as
    # sycl-build, pip's build of an Intel distribution's source as install, the fp64 aspect of a
    # refused kernel, IPEX's XPU DLL named alone, SD.Next's oneAPI check: 469, 472, 489 alone);
    # all of it together: 484, 487, 503 of 651, 2 of 1218; then the twenty-second's kept-aside
    # texts, measured once (11, 12, 12 of 22; 0 of 29 alarms), joined it: 495, 499, 515 of 673,
    # 2 of 1247; then the layer markers of the compute runtime's own files (gmmlib, its OpenCL
    # driver, IGC's libraries), oneAPI's compilers named in a CMake configuration, pip's "Cannot
    # install" for a package of the stack and Windows' "not a valid Win32 application": 499, 503,
    # 519 of 673, 2 of 1247; beside them, the twenty-third's development texts (at its split:
    # 508, 512, 532 of 706, 2 of 1285); together: 512, 516, 536 of 706, 2 of 1285; beside them,
    # the label conflicts decided by the standing rule (a generic result code whose thread
    # established nothing more takes the entry that names the code, else the layer where it
    # surfaced: -999 as xpu-ur-unknown, read as PI_ERROR_UNKNOWN; OUT_OF_HOST_MEMORY the runtime
    # layer's; libze_loader.so.1 missing oneapi-runtime-libs') applied across the part, with four
    # texts whose recorded cause is an entry's own (nineteen texts relabelled, sampling.yaml's
    # `relabelled`), OUT_OF_RESOURCES written bare, 4.00 GiB refused beside GiBs already
    # allocated as memory running out, and entries for the free-memory query and non-uniform
    # work-groups (four texts relabelled to them): 513, 516, 524 of 673 alone (from 495, 499,
    # 515); all of it together: 530, 533, 545 of 706, 2 of 1285; then the twenty-third's
    # kept-aside texts, measured once (14, 15, 18 of 28; 1 of 31 alarms: ZLUDA #226, Intel's
    # loader words in a CUDA-on-AMD text), joined it: 544, 548, 563 of 734, 3 of 1316; with
    # three of its texts of the runtime's "no device" code labelled xpu-not-visible by the
    # standing rule (sampling.yaml's `relabelled`): 547, 551, 563; then the layer words its
    # texts lacked (MSBuild's form of a oneAPI compiler's error, dpctl's program and filter
    # errors, ideep, oneAPI.jl's driver search, clDNN and its ICD call, dpctl attributes): 556,
    # 560, 572; then the twenty-fourth's development texts (at its split: 569, 573, 586 of 767,
    # 3 of 1362); then the twenty-fifth's (at its split: 579, 584, 601 of 798, 3 of 1397); then
    # the stack's vocabulary (names read from its own wheels, headers and sources, not from these
    # texts): the compute runtime's NEO:: frame (compute-runtime #695) as level-zero, 557, 561,
    # 573 of 734 alone; with the two collections' texts 580, 585, 602 of 798; then the two
    # collections' kept-aside texts, measured once together (22, 22, 24 of 50; 3 of 50 alarms:
    # mxnet #20301, computecpp-sdk #230, BabelStream #228), joined it: 602, 607, 626 of 848, 6 of
    # 1447; then the kernel driver's own log lines for a GPU (any message after its module name
    # and PCI address), its module refused for another kernel's symbols, and its GuC's errors:
    # 608, 613, 633; then SYCL's words Intel's only where no other implementation is named, and
    # the standard's revisions by name no word of any stack: 608, 613, 633, 5 alarms; then the
    # CPU programs' libraries (oneMKL's CPU kernels, OpenMP, the compiler runtime) in
    # oneapi-runtime-libs only beside the Intel stack, "Intel MKL" no word of it: 607, 612, 632,
    # 4 alarms (mxnet #20301 names nothing; ipex-llm #11001, a bare "libmkl_intel_lp64.so.2:
    # cannot open", rightly names nothing too); then a name missing from IPEX's compiled core
    # not ipex-xpu-name (intel-extension-for-deepspeed #26): 608, 613, 633 of 848, 4 of 1447; with
    # the twenty-sixth's development texts (split before the three: 621, 626, 648 of 885, 7 of
    # 1494 at its split), after the three: 621, 626, 648 of 885, 5 of 1494; then TensorFlow's
    # start-up notices naming oneDNN placed in no stack (jupyter/docker-stacks #1484): 4 of 1494;
    # and on the 848 texts before it, after the driver lines (608, 613, 633), the compilers',
    # linkers' and build tools' own forms of a SYCL build's failure (a diagnostic in a path that names SYCL, the DPC++ driver's SYCL errors and offload
    # steps, LLD's and MSVC's SYCL symbols, Ninja's and Make's SYCL targets, GPUCompiler.jl's
    # invalid IR) and dpctl's and Intel's OpenCL runtime's names: 622, 627, 647; then oneDNN's
    # harness failing to create its CPU engine, the device filter among its reasons: 623, 628, 648
    # of 848; with everything above: 636, 641, 663 of 885, 4 of 1494; then the twenty-sixth's
    # kept-aside texts, measured once (10, 10, 11 of 31; 1 of 25 alarms: alibaba/zvec #92), joined
    # it: 646, 651, 674 of 916, 5 of 1519; then an Intel CPU by its code name the machine, not
    # the stack (zvec #92 names nothing): 4 of 1519; then a DLL named alone no longer the
    # Windows loader's wording, and a fault inside IGC's library the sycl-build layer's
    # (intel/llvm #6149 gained; OpenCLCapsViewer #10 names nothing): 647, 652, 675; then four
    # texts of the GPU compute runtime and its OpenCL driver relabelled from the runtime layer to
    # level-zero by the table of layers (sampling.yaml's `relabelled`; two of them gained): 649,
    # 654, 677; then DPC++'s filter_selector's own words the selection layer's (intel/llvm
    # #7897 names xpu-devices-hidden, the right layer): 649, 654, 678; then the twenty-seventh's
    # development texts, at its split before those three rounds: 654, 659, 682 of 948, 5 of 1547
    # (artyom-beilis/pytorch_dlprim #9, an OpenCL backend's own ABI error, named ipex-xpu-abi),
    # with them: 657, 662, 686 of 948; then the twenty-seventh's kept-aside texts, measured once
    # (9, 9, 9 of 28; 0 of 15 alarms), joined it: 666, 671, 695 of 976, 5 of 1562; then the
    # words of the stack that collection showed missing (intel_gpu_top's PMU refusals the driver
    # layer's, oneAPI's compilers as CMake, Meson and configure name them, a SYCL header not
    # found, i915 firmware under FreeBSD: 21 of its texts and E3SM scream #2736 gained, none
    # lost): 688, 693, 717, 5 of 1562; then the twenty-eighth's development texts at its split:
    # 693, 699, 722 of 1000, 5 of 1591; then the twenty-ninth's development texts at its split:
    # 696, 702, 726 of 1017, 5 of 1642; then the stable messages and structures of named Intel
    # components among the misses that name the stack (daal4py's SYCL module, Spack's oneAPI
    # packages, pip's resolver over a list naming the stack, IPEX's setup.py, Triton's JIT for
    # xpu, the compute runtime's Level Zero sources, ipex-llm's kernels, DPC++'s zero-sized
    # accessor, numba-dpex's device check, dpctl's first device of a type, the OpenCL CPU
    # runtime's own libraries; written from the 976 texts before the twenty-eighth: 704, 709,
    # 733 of 976, 16 gained, none lost): 712, 718, 742 of 1017, 5 of 1642; then the
    # twenty-eighth's kept-aside texts, measured once (5, 5, 6 of 23; 0 of 26 alarms), joined it:
    # 717, 723, 748 of 1040, 5 of 1668; then what that collection showed missing (package
    # managers refusing the GPU compute runtime's own packages, source builds of its compilers,
    # i915's and xe's firmware and GVT-g's vGPU types, builds by oneAPI's compilers under Spack
    # and CMake, xe's failed GuC reset, oneAPI.jl's Level Zero check: 26 gained, none lost):
    # 743, 749, 773 of 1040, 5 of 1668; then the twenty-ninth's kept-aside texts, measured once
    # (2, 2, 4 of 7; 0 of 27 alarms), joined it: 745, 751, 777 of 1047, 5 of 1695; then the
    # thirtieth's development texts at its split, no rule changed: 749, 755, 781 of 1066, 7 of
    # 1745 (two of its neighbours named, recorded, not tuned away: a Vulkan renderer's crash in
    # the Intel graphics compiler's igc64.dll, named level-zero, and hashcat's OpenCL kernel
    # build, named sycl-build); then the thirtieth's kept-aside texts, measured once (3, 3, 3 of
    # 9; 0 of 25 alarms), joined it: 752, 758, 784 of 1075, 7 of 1770; then the
    # thirty-first's development texts at its split, no rule changed: 755, 761, 788 of 1089, 7
    # of 1859 (none of its 89 neighbours named); then the thirty-first's kept-aside texts,
    # measured once (3, 3, 3 of 8; 1 of 57 alarms, OpenGothic's Vulkan "Out of device memory"
    # named xpu-out-of-memory, recorded), joined it: 758, 764, 791 of 1097, 8 of 1916; then a
    # Level Zero code printed as a number after any ze* entry point's name, the loader's device,
    # permission, dependency and validation codes decoded, Windows' Code 43 and dmesg's
    # "[DRM/i915]" the driver layer's (3 gained, none lost): 761, 767, 793; then the
    # thirty-second's development texts at its split, no rule changed: 768, 774, 801 of 1117, 11
    # of 1984 (three of its neighbours named, recorded, not tuned away: flashlight #581 named
    # onednn, and two Intel FPGA builds the collector labelled unrelated, oneAPI-samples #249 and
    # #158, named sycl-build and xpu-out-of-memory); then the thirty-second's kept-aside texts,
    # measured once (8, 8, 9 of 21; 0 of 55 alarms), joined it: 776, 782, 810 of 1138, 11 of 2039;
    # then the install layer's words for oneAPI's own packages in rpm's, dnf's and apt's
    # refusals, Intel's apt repository key, its offline installer, a missing setvars.sh and
    # Intel MPI's wrappers calling removed compilers, a GPU runtime .deb dpkg cannot unpack (9
    # gained, none lost; Lmod's refusals left out: two neighbours carry them): 785, 791, 819;
    # then a build against oneAPI's headers in the toolchain's words on the line of oneAPI's
    # path, GCC refusing oneAPI's OpenMP offload flags, CMake's check of a compiler under a
    # oneapi path (sycl-build; 5 gained, none lost): 790, 796, 824; then a package asking IPEX
    # for a public name the installed IPEX lacks (integration; 1 gained, kohya's held back by
    # its CUDA decorator): 791, 797, 825; the DPC++ front end's refusal of device code quoted
    # without its "error:" prefix (sycl-build, 1 gained): 792, 798, 826; then the thirty-third
    # collection's development texts, at its split (2 of 8 first, 5 of 8 layer, 2 of 76 named):
    # 794, 800, 831 of 1146, 13 of 2115; then its kept-aside texts, measured once (3, 3, 6 of 8;
    # 0 of 28 alarms), joined it: 797, 803, 837 of 1154, 13 of 2143; then the thirty-fourth
    # collection's development texts, at its split, no rule changed (7 of 22 first, 15 of 22
    # layer, 0 of 84 named): 804, 810, 852 of 1176, 13 of 2227; then its kept-aside texts,
    # measured once (3, 3, 6 of 12; 0 of 33 alarms), joined it: 807, 813, 858 of 1188, 13 of 2260;
    # then a C++ compiler's "error:" on a line naming SYCL and a link against a newer UR loader
    # (sycl-build; 3 gained, none lost): 810, 816, 861; then the thirty-fifth collection's
    # development texts, at its split, no rule changed for it (7 of 22 first, 10 of 22 layer, 0 of
    # 58 named): 817, 823, 871 of 1210, 13 of 2318; then its kept-aside texts, measured once (6,
    # 6, 8 of 15; 0 of 25 alarms), joined it: 823, 829, 879 of 1225, 13 of 2343; then ifx, oneAPI's
    # Fortran compiler, in its driver's diagnostic prefix (an Intel word, and sycl-build where
    # it is an error; 3 gained, none lost): 826, 832, 882; then the thirty-sixth collection's
    # development texts, at its split (1 of 17 first, 7 of 17 layer, 0 of 50 named): 827, 833, 889
    # of 1242, 13 of 2393; then its kept-aside texts, measured once (0, 0, 2 of 15; 0 of 41
    # alarms), joined it: 827, 833, 891 of 1257, 13 of 2434; then Intel's Windows kernel-mode
    # graphics driver (igdkmd64.sys) as an Intel word and the driver layer's (9 gained, none lost;
    # one alarm more: IGCIT #1451, an earlier collector's display-only bug check labelled
    # unrelated, where the later ones label the same form layer:driver): 836, 842, 900, 14 of 2434;
    # then the thirty-seventh collection's development texts, at its split (3 of 7 first, 3 of 7
    # layer, 0 of 18 named): 839, 845, 903 of 1264, 14 of 2452; then its kept-aside texts,
    # measured once (1, 1, 1 of 3; 0 of 20 alarms), joined it: 840, 846, 904 of 1267, 14 of 2472;
    # then the thirty-eighth collection's development texts, at its split (12 of 23 first, 14 of
    # 23 layer, 2 of 50 named) and its kept-aside texts, measured once (6, 6, 6 of 13; 0 of 32
    # alarms), joined it: 858, 864, 924 of 1303, 16 of 2554; then its two torchvision mismatches
    # beside a CUDA torch relabelled torchvision-broken, as eleven earlier texts of that form
    # are (the two alarms, both named so): 860, 866, 926 of 1305, 14 of 2552; then a display
    # pipe's line kept within its log line, intel_gpu_top's and i915's other words for the PMU
    # and for an error to report, and i915's older words for a device it does not probe (7
    # gained, none lost): 867, 873, 932; then the GPU hangs whose threads established nothing
    # beyond the hang, labelled layer:driver from the twenty-ninth collection on and xpu-gpu-hang
    # before, relabelled xpu-gpu-hang (30 texts, sampling.yaml's `relabelled`): 897, 903, 932;
    # then i915's and xe's log line for one GT without its device prefix (1 gained): 898, 904, 933;
    # then the thirty-ninth collection's development texts, at its split (6 of 20 first, 8 of 20
    # layer, 3 of 53 named) and its kept-aside texts, measured once (6, 6, 8 of 14; 0 of 34
    # alarms), joined it: 910, 916, 949 of 1339, 17 of 2639; then Paddle's Kunlun warning as
    # another stack's, torch's assert for mkldnn as a device and a bare NameError for exit as no
    # stack's (the three alarms gone, nothing lost): 14 of 2639; then its two video hangs with no
    # cause beyond the hang relabelled xpu-gpu-hang, as the convention had it: 912, 918, 949;
    # then GVT-g's log lines, KVMGT and ONNX Runtime's DnnlExecutionProvider as the stack's (5
    # gained, none lost), and its two development video hangs relabelled by the same
    # convention: 919, 925, 954; then the fortieth collection's development texts, at its split
    # (2 of 11 first and layer, 0 of 57 named) and its kept-aside texts, measured once (0, 0, 0
    # of 6, none holding a word of the stack; 0 of 38 alarms), joined it: 921, 927, 956 of 1356,
    # 14 of 2734; then the forty-first collection's development texts, at its split (1 of 9
    # first and layer, 1 of 63 named: AdaptiveCpp #762, Intel's dpct headers under another SYCL
    # compiler that the text does not name) and its kept-aside texts, measured once (0, 0, 0 of
    # 6; 0 of 52 alarms), joined it: 922, 928, 957 of 1371, 15 of 2849; then the forty-second
    # collection's development texts, at its split (3 of 13 first and layer, 0 of 52 named) and
    # its kept-aside texts, measured once (3, 3, 3 of 10; 0 of 32 alarms), joined it: 928, 934,
    # 963 of 1394, 15 of 2933; then IPEX 1.0 to 1.9's package and device string as
    # ipex-legacy-module, and the one development text of that cause relabelled to it: 929, 935,
    # 964; then the forty-third collection's development texts, at its split (12 of 20 first, 13
    # of 20 layer, 1 of 53 named) and its kept-aside texts, measured once (4, 4, 4 of 9; 0 of 37
    # alarms), joined it: 945, 951, 981 of 1423, 16 of 3023; then Intel's CPU math library by
    # its long name ("Intel Math Kernel Library") as no word of the stack, as "Intel MKL" was
    # not (that alarm gone, nothing lost): 15 of 3023; with its one xpu-out-of-resources text's
    # layer recorded as null (an entry of several causes): 982 right layer; then IPEX's
    # training-mode assertion as ipex-optimize-training-mode, its two texts relabelled to it:
    # 947, 953, 984; then the forty-fourth collection's development texts, at its split (1 of 8
    # first, 2 of 8 layer, 0 of 58 named) and its kept-aside texts, measured once (1, 1, 1 of
    # 5; 0 of 40 alarms), joined it: 949, 956, 987 of 1436, 15 of 3121; then IPEX 1.10 and
    # 1.11's check of its binary's ISA as a word of the stack and the cpu layer's: 950, 957, 988;
    # then the forty-fifth collection's development texts, at its split (5 of 8 first and layer,
    # 0 of 26 named) and its kept-aside texts, measured once (0, 0, 0 of 4; 0 of 11 alarms),
    # joined it: 955, 962, 993 of 1448, 15 of 3158; then torch's type name of an XPU tensor
    # (XPUFloatType) as a word of the stack, and a layer's input of another type than its weight
    # as the code layer's: 956, 963, 994
    "development": (1448, 956, 963, 994, 3158, 15),
    "kept-aside": None,  # NOTE: empty until the next collection is split
    # NOTE: "could not create an engine" is onednn; "The program was built for N devices" is the
    # sycl-build layer (three sampled threads, none a missing kernel), not xpu-kernel-not-built
    "earlier (chosen)": (90, 86, 87, 87, 16, 0),
    "earlier held out": (20, 19, 19, 19, 5, 0),
}
"""Measured when the rules were final for the newest collections (kept-aside: once, afterwards;
its false alarm is recorded, not tuned away). Update only by adding texts, never by tuning on a
kept-aside text."""
SHORT_OF_NEIGHBOURS = {
    frozenset({16, 17}): 19,
    frozenset({19}): 20,
    frozenset({21}): 21,
    frozenset({22}): 29,
    frozenset({26}): 25,
    frozenset({27}): 15,
    frozenset({29}): 27,
    frozenset({30}): 25,
    frozenset({33}): 28,
    frozenset({35}): 25,
    frozenset({37}): 20,
    frozenset({45}): 11,
}
"""Kept-aside parts with fewer than the 30 unrelated texts the issue asks for, and how many they
hold: the sixteenth and seventeenth collections brought 45 neighbours in all (the collectors found
the Intel trackers nearly exhausted, and took every neighbour a query returned, never chose
one), of which their seeded split kept 19 aside; the nineteenth brought 58 neighbours, of which
its split kept 20 aside; the twenty-first brought 66, of which its split kept 21 aside; the
twenty-second brought 63, of which its split kept 29 aside; the twenty-sixth brought 72, of which
its split kept 25 aside; the twenty-seventh brought 43, of which its split kept 15 aside (35 %
of its 43 kept-aside texts, under the 40 % the sampling aimed at); the twenty-eighth brought 55,
of which its split kept 26 aside, and the twenty-ninth 78, of which its split kept 27 aside (the
two kept-aside parts together hold 53, enough; the twenty-ninth's alone, once the twenty-eighth's
is measured, 27); the thirtieth brought 75, of which its split kept 25 aside; the thirty-fifth
brought 83, of which its split kept 25 aside; the thirty-seventh 38 (its collector stopped short
of the minimums), of which its split kept 20 aside; the forty-fifth 37 (its collector stopped at
60 queries short of both minimums), of which its split kept 11 aside. Their measurement
says so beside its alarms."""


@pytest.mark.parametrize("part", list(PARTS))
def test_each_text_names_its_thread_and_an_answer_that_exists(part: str) -> None:
    """A thread URL, a tracker, and what explain must name: an entry that exists (with that
    entry's layer, or null where it stands for a message with several causes), a layer of
    ``LAYERS``, or nothing (``unrelated``: no layer either)."""
    for case in PARTS[part]:
        assert case["thread"].startswith("https://") and case["tracker"], case
        expect = case["expect"]
        if expect == accuracy.UNRELATED:
            assert case["layer"] is None, case
        elif expect.startswith("layer:"):
            assert expect.split(":", 1)[1] == case["layer"] and case["layer"] in LAYERS, case
        else:
            entry = KNOWLEDGE.get(expect)
            assert entry is not None, case
            assert case["layer"] == (None if entry.causes else entry.layer), case


def test_the_sampled_parts_are_the_seeded_split_of_their_threads() -> None:
    """Every text of the sampled corpus names its collection and is in the part its thread's
    seeded draw gives (a measured collection: development), and no thread is in two parts or in
    an earlier collection."""
    for name in ("development", "kept-aside"):
        assert all(c["collection"] in split.SEEDS for c in PARTS[name])
        assert all(split.part_of(c["thread"], c["collection"]) == name for c in PARTS[name])
    sampled = [c["thread"] for name in ("development", "kept-aside") for c in PARTS[name]]
    earlier = {c["thread"] for name in PARTS for c in PARTS[name] if "earlier" in name}
    assert len(sampled) == len(set(sampled)) and not set(sampled) & earlier


def test_the_sampling_record_reads_and_records_every_split_and_measurement() -> None:
    """sampling.yaml is how a reader reproduces the corpus: it must load as YAML (a `` #`` in a
    plain value once cut a block short, and nothing read the file whole), hold each collection's
    seed in its ``split`` (the fourth's at the top), and each measured collection's measurement
    (the fourth's and fifth's, taken before the blocks had the key, in the file's opening
    comment)."""
    record = yaml.load(SAMPLING.read_text(encoding="utf-8"), Loader=safe_loader())
    blocks = [record, *(v for k, v in record.items() if k.endswith("_collection"))]
    for number, seed in split.SEEDS.items():
        block = [b for b in blocks if f"seed {seed}" in str(b.get("split"))]
        assert len(block) == 1, (number, seed)
        assert number not in split.MEASURED or number < 6 or block[0].get("measured"), number


def test_the_kept_aside_part_is_the_unmeasured_collections_and_their_neighbours() -> None:
    """Only collections not yet measured are kept aside (a measured one has been seen, and the
    part is empty until the next is split), and their unrelated neighbours are at least the 40 %
    the sampling aimed at and the 30 the issue asks for, or as many as the collections that fell
    short of it brought (``SHORT_OF_NEIGHBOURS``, recorded in sampling.yaml)."""
    kept = PARTS["kept-aside"]
    assert bool(kept) == bool(set(split.SEEDS) - split.MEASURED)
    assert all(c["collection"] not in split.MEASURED for c in kept)
    unrelated = [c for c in kept if c["expect"] == accuracy.UNRELATED]
    short = SHORT_OF_NEIGHBOURS.get(frozenset(c["collection"] for c in kept))
    if short is not None:  # recorded as it fell: exactly that many, never fewer unnoticed
        assert len(unrelated) == short
    else:
        assert len(unrelated) >= 0.4 * len(kept) and (not kept or len(unrelated) >= 30)


@pytest.mark.parametrize("part", list(PARTS))
def test_explain_holds_what_was_measured(part: str) -> None:
    measured = MEASURED[part]
    if measured is None:
        pytest.skip("the kept-aside part is measured once, when the rules are final")
    related, first, top3, layer, unrelated, _ = measured
    tally = accuracy.score(PARTS[part], KNOWLEDGE)["all"]
    assert (tally.related, tally.unrelated) == (related, unrelated)
    assert tally.first >= first, tally.misses
    assert tally.top3 >= top3, tally.misses
    assert tally.layer >= layer, tally.misses


@pytest.mark.parametrize("part", list(PARTS))
def test_explain_names_nothing_for_a_text_outside_the_intel_stack(part: str) -> None:
    """No entry and no layer for the neighbours' errors (CUDA, ROCm, MPS, Ascend, plain
    Python): a false alarm is as bad as a miss. None on the parts rules were written from; on a
    kept-aside part, no more than its one measurement found."""
    measured = MEASURED[part]
    if measured is None:
        pytest.skip("the kept-aside part is measured once, when the rules are final")
    tally = accuracy.score(PARTS[part], KNOWLEDGE)["all"]
    assert tally.alarms <= measured[-1], [m for m in tally.misses if m.startswith("unrelated")]


def test_every_layer_is_described_with_what_examines_it_and_what_to_collect() -> None:
    described = {layer.id: layer for layer in KNOWLEDGE.layers}
    assert set(described) == set(LAYERS)
    for layer in described.values():
        assert layer.examine and layer.collect and layer.title, layer.id


def _case(part: str, thread: str) -> dict[str, Any]:
    return next(c for c in PARTS[part] if c["thread"] == thread)


def test_a_layer_expectation_is_right_only_when_no_entry_is_named() -> None:
    """The scoring itself: ``layer:<name>`` is first-ranked only when explain names no entry
    and names that layer; an entry of the same layer is still the wrong answer."""
    case = {"expect": "layer:onednn", "layer": "onednn", "text": "x", "thread": "t", "tracker": "t"}
    layered = accuracy.diagnose("oneDNN: could not create a primitive descriptor", KNOWLEDGE)
    entry = accuracy.diagnose("RuntimeError: \"dot\" not implemented for 'Half'", KNOWLEDGE)
    assert accuracy.judge(case, layered) == {"first": True, "top3": True, "layer": True}
    assert accuracy.judge(case, entry)["first"] is False


def test_a_text_with_no_word_of_the_intel_stack_is_counted_and_stays_a_miss() -> None:
    """The benchmark's "no Intel word" column: a related text that holds no word of the Intel
    stack (a generic message quoted from an XPU thread) is counted there and still counted as a
    related text: explain names no layer for it, so it is a miss unless an entry names its cause."""
    generic = {"expect": "layer:integration", "layer": "integration", "thread": "t", "tracker": "t",
               "text": "AssertionError: Torch not compiled with CUDA enabled"}  # fmt: skip
    named = {**generic, "text": "neuralchat error: Device does not exist"}
    tally = accuracy.score([generic, named], KNOWLEDGE)["all"]
    assert (tally.related, tally.silent, tally.silent_first, tally.first) == (2, 1, 0, 1)


def test_by_why_groups_each_layer_miss_by_its_reason() -> None:
    """``--by why``: a related text without the right layer is grouped by why it missed (no Intel
    word, an entry of another layer, another layer's wording, no layer), every other text as
    right or unrelated, and the groups add up to the whole part."""
    base = {"layer": "runtime", "expect": "layer:runtime", "thread": "t", "tracker": "t"}
    texts = {
        "AssertionError: Torch not compiled with CUDA enabled": accuracy.WHY["silent"],
        "oneDNN: could not create a primitive descriptor": accuracy.WHY["wording"],
        "RuntimeError: XPU out of memory. Tried to allocate 2.00 GiB": accuracy.WHY["entry"],
        "Intel Arc A770: the picture is black": accuracy.WHY["none"],
        "RuntimeError: Native API failed. Native API returns: -5": "right layer",
    }
    cases = [{**base, "text": text} for text in texts]
    cases.append({"layer": None, "expect": "unrelated", "thread": "u", "tracker": "t",
                  "text": "CUDA error: out of memory"})  # fmt: skip
    tallies = accuracy.score(cases, KNOWLEDGE, "why")
    for text, group in texts.items():
        found = accuracy.diagnose(text, KNOWLEDGE)
        silent = not accuracy.names_intel_stack(text, KNOWLEDGE)
        got = accuracy.judge({**base, "text": text}, found)
        assert accuracy.why({**base, "text": text}, found, got, silent) == group, text
    assert sum(t.related + t.unrelated for k, t in tallies.items() if k != "all") == len(cases)
    assert tallies["(unrelated)"].unrelated == 1 and tallies["right layer"].layer == 1
