"""explain's layers by the structure of a text: the stack's own components named as files,
namespaces, classes, result codes and kernel banners place a text that no entry names in the
layer they belong to; the same shapes from another vendor's stack, or the same markers where a
lower layer's evidence says more, place it nowhere or elsewhere."""

from __future__ import annotations

import json

import pytest
from conftest import run_doctor

from ipex_doctor.knowledge import known_issues
from ipex_doctor.knowledge.explain import Explanation, diagnose

KB = known_issues.load()

# The i915 module as a kernel backtrace tags one of its frames: a word of the Intel stack, not
# what places the text (a display warning prints the same tag).
_I915_FRAME = "  intel_gt_reset+0x1a2/0x300 [i915]"


def _layer(found: Explanation) -> str | None:
    return found.layer.layer.id if found.layer is not None else None


@pytest.mark.parametrize(
    ("text", "layer"),
    [
        # the kernel's own oops banner while an Intel GPU workload ran (i915-backports #193)
        ("kernel: [ 2744.945436] BUG: kernel NULL pointer dereference, address: 00000000000000c8\n"
         f"kernel: Call Trace:\n{_I915_FRAME}", "driver"),
        ("Kernel panic - not syncing: Fatal exception\n" + _I915_FRAME, "driver"),
        # the kernel driver's own log line for a GPU, whatever it reports (a firmware it could
        # not load, its GuC's refusal); the kernel refusing the module's symbols; the driver's
        # error about its GuC (i915-sriov-dkms #285, #314, #183, #103)
        ("[   12.243823] i915 0000:00:02.0: firmware: failed to load i915/adlp_dmc.bin (-2)",
         "driver"),
        ("xe 0000:03:00.0: [drm] GT0: GuC firmware xe/bmg_guc_70.bin: fetch failed -ENOENT",
         "driver"),
        ("[    3.451821] i915: Unknown symbol drm_dp_clock_recovery_ok (err -2)", "driver"),
        ("[drm] *ERROR* GuC submission disabled Device initialization failed (-19) on the i915 "
         "VF", "driver"),
        # sycl-ls listing only OpenCL devices, no Level Zero GPU (compute-runtime #832)
        ("$ sycl-ls\n[opencl:cpu][opencl:0] Intel(R) OpenCL, 11th Gen Intel(R) Core(TM) i7-11700K "
         "@ 3.60GHz OpenCL 3.0\n[opencl:gpu][opencl:1] Intel(R) OpenCL Graphics, Intel(R) UHD "
         "Graphics 750 OpenCL 3.0 NEO", "level-zero"),
        # Unified Runtime's adapter as Windows names it, and the SYCL runtime's PI plugin: the
        # runtime's own libraries, over the Windows loader's bare ".dll"
        ("<LOADER>[ERROR]: failed to load adapter 'ur_adapter_level_zero.dll' with error: The "
         "specified module could not be found.", "runtime"),
        ("ImportError: libpi_opencl.so: cannot open shared object file: No such file or directory",
         "runtime"),
        # oneMKL's SYCL interface throwing
        ("terminate called after throwing an instance of 'oneapi::mkl::unsupported_device'\n"
         "  what():  oneMKL: blas/gemm: unsupported device", "runtime"),
        # torch's XCCL process group, its name inside one identifier
        ("[rank1]: torch.distributed.DistBackendError: [PG ID 0 PG GUID 0(default_pg) Rank 1] "
         "ProcessGroupXCCL.cpp:412 allreduce failed", "distributed"),
        # Inductor's and Dynamo's own frames, where nothing stronger places the text; Inductor's
        # XPU code generation as a path names the stack by itself
        ('  File "/venv/lib/python3.12/site-packages/torch/_inductor/codegen/xpu/'
         'device_op_overrides.py", line 40, in kernel_driver\nAssertionError', "compiler"),
        ('  File "/venv/lib/python3.12/site-packages/torch/_dynamo/eval_frame.py", line 655, in _fn\n'
         "AssertionError: expected a tensor on xpu:0", "compiler"),
        # every backend's code for a program that did not build or link
        ("RuntimeError: level_zero backend failed with error: ZE_RESULT_ERROR_MODULE_LINK_FAILURE",
         "sycl-build"),
        ("RuntimeError: Native API failed. Native API returns: -17 (PI_ERROR_LINK_PROGRAM_FAILURE)",
         "sycl-build"),
        ("UR_RESULT_ERROR_PROGRAM_LINK_FAILURE while linking the SYCL program", "sycl-build"),
        # the Level Zero loader's Windows DLL crashing (openvino.genai #2063), over the bare ".dll"
        ("Exception thrown at 0x00007FFFD1C92757 (ze_loader.dll) in app.exe: 0xC0000005: Access "
         "violation reading location 0x000001E297930E29.", "level-zero"),
        # a tool's own assertion that a Level Zero call succeeded (pti-gpu #64)
        ("python: tracer.h:50: static UniTracer* UniTracer::Create(): Assertion `status == "
         "ZE_RESULT_SUCCESS' failed.\nAborted (core dumped)", "level-zero"),
        # AdaptiveCpp refusing DPC++'s flag (oneMath #478); IGC's SPIR-V reader refusing a device
        # program (AOSC #7879), over the compiler layer's bare "IGC"
        ("acpp error: fatal: The -fsycl flag is a component from a different SYCL implementation.",
         "sycl-build"),
        ("InvalidBuiltinSetName: Expects OpenCL12, OpenCL20. [Src: /build/intel-graphics-compiler/"
         "IGC/AdaptorOCL/SPIRV/libSPIRV/SPIRVModule.cpp:565 ]\n  what():  internal compiler error",
         "sycl-build"),
        # OpenVINO's NPU plugin reporting the NPU driver's Level Zero call, and its property for
        # the NPU driver's version: the NPU, not a GPU rung (ok-wuthering-waves #1600, #144)
        ("Exception from src\\plugins\\intel_npu\\src\\utils\\src\\zero\\zero_mem.cpp:27:\n"
         "L0 zeMemAllocHost result: ZE_RESULT_ERROR_UNINITIALIZED, code 0x78000001", "npu"),
        ("core.get_property('NPU', 'NPU_DRIVER_VERSION') -> \"No available backend\"", "npu"),
        # a build by oneAPI's DPC++/C++ compilers that fails, Windows or Linux (syclacademy #334,
        # oneMath #648, QUDA #1332), and the deprecated dpcpp driver: sycl-build, not compiler
        ("icpx: error: unknown argument: '-MDd'", "sycl-build"),
        ("icx: error: cannot specify '-Fobin\\rng\\rng_loader.cpp.obj' when compiling multiple "
         "source files", "sycl-build"),
        ("/usr/bin/ld: ../lib/libquda.a: error adding symbols: File format not recognized\n"
         "icpx: error: linker command failed with exit code 1 (use -v to see invocation)",
         "sycl-build"),
        ("dpcpp: error: no such file or directory: 'kernel.cpp'", "sycl-build"),
        # IGC crashing while it builds an OpenCL program (john #5876), and an OpenCL C source the
        # Intel GPU's runtime did not compile (darktable #20179)
        ("Build log: IGC: Internal Compiler Error: Segmentation violation\nError building kernel "
         "/usr/share/john/opencl/ethereum_kernel.cl. DEVICE_INFO=4", "sycl-build"),
        ("Error [dt_opencl_device_init] failed to compile program `basic.cl'! on Linux with Intel "
         "GPU", "sycl-build"),
        # SYCLomatic's migration tool crashing (SYCLomatic #2876)
        ("Error: meet signal:SIGSEGV dpct tries to write analysis reports and terminates...",
         "sycl-build"),
        # FFmpeg's OpenCL device from VA-API (Intel's OpenCL only) finding no OpenCL platform:
        # the compute runtime's OpenCL driver is absent (jellyfin #16566)
        ("[AVHWDeviceContext @ 0x55c1cec43040] Failed to get number of OpenCL platforms: -1001.\n"
         "Device creation failed: -19.\nFailed to set value 'opencl=ocl@va' for option "
         "'init_hw_device': No such device", "level-zero"),
        # clinfo beside the compute runtime's small-BAR warning (compute-runtime #831)
        ("root@vm:/# clinfo\nWARNING: Small BAR detected for device 0000:01:00.0\n"
         "Number of platforms                               0", "level-zero"),
        # a clang++ -fsycl compilation that failed (the open-source DPC++'s driver)
        ("$ clang++ -fsycl -fsycl-targets=spir64 vadd.cpp -o vadd\nvadd.cpp:12:5: error: no "
         "matching function for call to 'parallel_for'", "sycl-build"),
        # dpctl's SYCL interface library not found (numba-dpex #1505)
        ("ImportError: libDPCTLSyclInterface.so.0: cannot open shared object file: No such file "
         "or directory", "runtime"),
        # the compute runtime's own components by their files: gmmlib's sources in the runtime
        # and its library (xpumanager #128), the runtime's OpenCL driver as Windows names it
        ("xpumd[812]: gmm_helper/resource_info.cpp:15: Assertion `false' failed.\n"
         "Aborted (core dumped)", "level-zero"),
        ("xpu-smi: error while loading shared libraries: libigdgmm.so.12: cannot open shared "
         "object file: No such file or directory", "level-zero"),
        ("Exception thrown at 0x00007FFB1A2C3D4E (igdrcl64.dll) in clinfo.exe: 0xC0000005: "
         "Access violation reading location 0x0000000000000010.", "level-zero"),
        # a fault inside the Intel Graphics Compiler's own library, in the forms a debugger,
        # Windows's fault report and gdb give it: IGC runs only to build a device program, so
        # the fault is that build's, as its crash banner is (intel/llvm #6149)
        ("Segmentation fault in libigc.so.1 (IGC::CodeGenContext::~CodeGenContext)\nAborted",
         "sycl-build"),
        ("Exception thrown at 0x00007FF8C1D20A11 (igc64.dll) in vadd.exe: 0xC0000005: Access "
         "violation writing location 0x0000000000000000.", "sycl-build"),
        ("Faulting module name: igdfcl64.dll, version: 31.0.101.5333\nException code: "
         "0xc0000005", "sycl-build"),
        ("#0  0x00007ffff2a1b3c4 in ?? () from /usr/lib/x86_64-linux-gnu/libigc.so.1\n"
         "#1  0x00007ffff29f0e11 in ?? () from /usr/lib/x86_64-linux-gnu/libigc.so.1",
         "sycl-build"),
        # a DLL that did not load, in the words of the program that asked for it (llama.cpp
        # #6309): the Windows loader's
        ("error: failed to load ggml-sycl.dll (built by icx)", "windows-loader"),
        # a CMake configuration that wants oneAPI's compiler (clpeak #162)
        ("-- oneAPI backend: disabled (needs icpx - reconfigure with -DCMAKE_CXX_COMPILER=icpx, "
         "current is GNU)", "sycl-build"),
        # pip's resolver finding no installable set for a package of the stack (ipex-llm #9749)
        ("ERROR: Cannot install intel-extension-for-pytorch==2.1.10+xpu and torch==2.1.0 because "
         "these package versions have conflicting dependencies.", "install"),
        # Windows refusing a library of the wrong architecture (sdnext #2255), over IPEX's name
        ("Error importing intel_extension_for_pytorch: [WinError 193] %1 is not a valid Win32 "
         "application", "windows-loader"),
        # Level Zero's API and Sysman variables, Unified Runtime's variables, and the Intel GPUs
        # by the names the words above lacked, each alone in a text
        ("zesDeviceGetProperties returned an error for device 0", "level-zero"),
        ("export ZES_ENABLE_SYSMAN=1 did not help: querying the available free memory failed",
         "level-zero"),
        ("UR_L0_USE_IMMEDIATE_COMMANDLISTS=0 python train.py\nSegmentation fault (core dumped)",
         "runtime"),
        ("Panther Lake iGPU: engine reset while the job ran", "driver"),
        ("Data Center GPU Max 1550: engine reset while the job ran", "driver"),
        # oneAPI's compiler driver failing in MSBuild's form, its origin field empty
        # (oneAPI-samples #730); dpctl's and numba-dpex's program that did not build (numba-dpex
        # #756)
        ("1>dpcpp: : error : clang-offload-bundler command failed with exit code 1", "sycl-build"),
        ("SyclProgramCompilationError when running numba_dpex/examples/pairwise_distance.py",
         "sycl-build"),
        # ideep, oneDNN's wrapper, refusing a tensor (IPEX #261)
        ("RuntimeError: itensor_view_from_dense expects dense tensor input", "onednn"),
        # oneAPI.jl given no Level Zero driver (oneAPI.jl #168); OpenVINO's clDNN plugin finding
        # no OpenCL platform (openvino #6984)
        ("Error: No compatible oneAPI driver implementation found.", "level-zero"),
        ("[CLDNN ERROR]. clGetPlatformIDs error -1001", "level-zero"),
        # dpctl refusing a filter string (dpctl #1027); sklearnex handing a string where a dpctl
        # queue belongs (scikit-learn-intelex #963)
        ("dpctl._sycl_queue.SyclQueueCreationError: SYCL Device 'opencl:gpu:2' could not be "
         "created.", "selection"),
        ("on the XPU path: 'str' object has no attribute 'sycl_device'", "integration"),
        # a package asking IPEX for a public name the installed IPEX lacks (intel-extension-for-
        # transformers #1630): written for another IPEX
        ("ImportError: cannot import name 'WeightOnlyQuantizedLinear' from "
         "'intel_extension_for_pytorch.nn.utils._quantize_convert'", "integration"),
        ("AttributeError: module 'intel_extension_for_pytorch.xpu' has no attribute "
         "'optimize_llm'", "integration"),
        # IPEX's own bindings asked by IPEX's Python layer: not a package written for another
        # IPEX (intel-extension-for-deepspeed #26 is torch's)
        ("AttributeError: module 'intel_extension_for_pytorch._C' has no attribute '_setDevice'",
         "torch"),
    ],
)  # fmt: skip
def test_a_structural_marker_names_the_layer_it_belongs_to(text: str, layer: str) -> None:
    found = diagnose(text, KB)
    assert found.matches == [] and _layer(found) == layer, found
    assert any(piece in text.replace("\n", " ") for piece in found.layer.matched)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "layer"),
    [
        # the runtime's own words raised through Inductor's frames: its layer, not the frames'
        ('  File "/venv/lib/python3.12/site-packages/torch/_inductor/graph.py", line 2050, in '
         "compile_to_module\nRuntimeError: UR error", "runtime"),
        # a sycl-ls listing beside the SYCL runtime's exception that ended the program
        ("$ sycl-ls\n[opencl:cpu][opencl:0] Intel(R) OpenCL\nterminate called after throwing an "
         "instance of 'sycl::_V1::exception'", "runtime"),
        # the Windows loader's own words around a Unified Runtime DLL
        ("ImportError: DLL load failed while importing _C: The specified module could not be "
         "found. ur_loader.dll", "windows-loader"),
        ("ImportError: DLL load failed while importing _C: The specified module could not be "
         "found. ze_loader.dll", "windows-loader"),
        # the SYCL runtime's own trace of a plugin it did not find: the runtime's libraries,
        # not the Windows loader's words (intel/llvm #11058)
        ("---> DLL_PROCESS_ATTACH pi_win_proxy_loader.dll\nSYCL_PI_TRACE[all]: Check if plugin "
         "is present. Failed to load plugin: pi_hip.dll", "runtime"),
        # the build command above a run's own error: the runtime's code says more
        ("$ clang++ -fsycl vadd.cpp -o vadd && ./vadd\nterminate called after throwing an "
         "instance of 'sycl::_V1::exception'\n  what():  Native API failed. Native API returns: "
         "-30 (PI_ERROR_INVALID_VALUE)", "runtime"),
        # dpct's namespace and headers in a migrated program at run time (ggml's SYCL backend):
        # the runtime's code, not SYCLomatic failing
        ("Native API failed. Native API returns: -30 (PI_ERROR_INVALID_VALUE)\nSYCL error: "
         "CHECK_TRY_ERROR(dpct::gemm_batch(*main_stream, oneapi::mkl::transpose::trans))\n"
         "  in ggml/src/ggml-sycl/dpct/helper.hpp:1722", "runtime"),
    ],
)  # fmt: skip
def test_a_weak_marker_gives_way_to_what_says_more(text: str, layer: str) -> None:
    """Frames, listings and library names are context: the layer of what failed wins."""
    found = diagnose(text, KB)
    assert found.matches == [] and _layer(found) == layer, found


@pytest.mark.parametrize(
    "text",
    [
        # the neighbours the layers must stay silent on: CUDA, ROCm, NCCL, MPS, plain Python
        "ImportError: /venv/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so: undefined "
        "symbol: cudaGraphInstantiateWithFlags, version libcudart.so.12",
        "RuntimeError: HIP error: hipErrorNoBinaryForGpu: Unable to find code object for all "
        "current devices!",
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
        "ProcessGroupNCCL.cpp:1970, unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
        "RuntimeError: MPS backend out of memory (MPS allocated: 17.00 GB, other allocations: "
        "1.20 GB, max allowed: 18.13 GB)",
        "ImportError: cannot import name 'soft_unicode' from 'markupsafe'",
        "ModuleNotFoundError: No module named 'flash_attn'",
        # Kunlunxin's own "XPU" collectives, under a process group of the same name
        "torch_xmlir ProcessGroupXCCL allreduce failed: libbkcl.so returned error 5",
        # Paddle's Kunlun build, its XPU named twice (Paddle #73315)
        "You are using XPU version Paddle, but your XPU device is not set properly. CPU device "
        "will be used by default.",
        # torch's assert for mkldnn passed as a device (pytorch #136831), and any script's
        # NameError for exit (snntorch #153): no oneDNN ran, no IPEX was imported
        'RuntimeError: 0 INTERNAL ASSERT FAILED at "../c10/core/TensorOptions.h":666, please '
        "report a bug to PyTorch. This is a grandfathered Caffe2 device type mkldnn, it shouldn't "
        "ever convert to a DispatchKey.",
        "---> 55         exit(1)\n...\nNameError: name 'exit' is not defined",
        # a display warning of the i915 driver, with its register dump and a frame tagged [i915]
        # (Dasharo #1617): the panel, not the compute stack
        "WARNING: CPU: 3 PID: 360 at drivers/gpu/drm/i915/display/intel_pps.c:755 "
        "intel_pps_vdd_on_unlocked+0x32b/0x340 [i915]\nRIP: 0010:intel_pps_vdd_on_unlocked+0x32b/0x340",
        # a kernel oops of another vendor's driver, and one that names no stack at all
        "BUG: kernel NULL pointer dereference, address: 0000000000000008\n"
        "RIP: 0010:amdgpu_vm_update+0x12/0x80 [amdgpu]",
        "BUG: unable to handle page fault for address: ffffffffc0a1b2c3\nKernel panic - not syncing",
        # Inductor's and Dynamo's frames on another stack, or on none
        '  File "/venv/lib/python3.11/site-packages/torch/_inductor/compile_fx.py", line 12\n'
        "RuntimeError: Triton Error [CUDA]: out of memory",
        '  File "/venv/lib/python3.11/site-packages/torch/_dynamo/eval_frame.py", line 655\n'
        "AssertionError",
        # a variable named like Unified Runtime's loader is not its library
        "    ur_loader = DataLoader(dataset)\nNameError: name 'dataset' is not defined",
        # sycl-ls listing another vendor's device through DPC++'s CUDA backend
        "$ sycl-ls\n[cuda:gpu][cuda:0] NVIDIA CUDA BACKEND, NVIDIA GeForce RTX 4090 8.9 [CUDA 12.4]",
        # MKL on the CPU, which every torch build uses: not oneMKL's SYCL interface
        "Intel MKL ERROR: Parameter 4 was incorrect on entry to DGEMM .",
        # other APIs' out-of-memory codes, and OpenCL's alone (every vendor's)
        "VK_ERROR_OUT_OF_DEVICE_MEMORY on NVIDIA GeForce RTX 3060",
        "CL_OUT_OF_HOST_MEMORY with ~12GB RAM free",
        "CL_LINK_PROGRAM_FAILURE while building the kernel",
        # a user account named intel in a home directory's path: onnxruntime's OpenVINO provider
        # failing to load on Windows (Deep-Live-Cam #356, error 126; facefusion #652, 127) cites
        # its build machine's source path, and a Linux home directory reads the same
        "EP Error C:\\Users\\intel\\Documents\\ort\\onnxruntime\\core\\session\\"
        "provider_bridge_ort.cc:1196 onnxruntime::ProviderLibrary::Get [ONNXRuntimeError] : 1 : "
        'FAIL : LoadLibrary failed with error 126 "" when trying to load "C:\\Python310\\lib\\'
        'site-packages\\onnxruntime\\capi\\onnxruntime_providers_openvino.dll"',
        'Fatal Python error: Segmentation fault\n  File "/home/intel/app/run.py", line 9 in main',
        # torch's parse error for a device string, whose list of every device type it knows
        # names xpu and mkldnn (fastsdcpu #355: OpenVINO's device name "GPU" passed to torch)
        "RuntimeError: Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, "
        "ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at "
        "start of device string: GPU",
        # other compilers failing a build: GCC, Clang, MSVC, NVIDIA's and AMD's drivers
        "g++: error: unrecognized command-line option '-MDd'",
        "clang++: error: linker command failed with exit code 1 (use -v to see invocation)",
        "$ clang++ -O2 -fopenmp vadd.cpp -o vadd  # oneAPI 2025.0 installed\nvadd.cpp:12:5: error: use of undeclared "
        "identifier 'omp_get_wtime'",
        "nvcc fatal   : Unsupported gpu architecture 'compute_35'",
        "hipcc: error: cannot find ROCm device library; provide its path via --rocm-path",
        "cl : Command line error D8021 : invalid numeric argument '/Wno-unused'",
        # a compiler's warning alone is no failure, and icx named in prose is no diagnostic
        "icpx: warning: use of 'dpcpp' is deprecated and will be removed in a future release.",
        "I built it with icx and it crashes: Segmentation fault",
        # OpenCL programs failing to build on other vendors' devices (hashcat #3662 on pocl,
        # xmrig on AMD), and another compiler's crash banner
        "clBuildProgram(): CL_BUILD_PROGRAM_FAILURE\nDevice pthread-AMD EPYC 9654 96-Core Processor "
        "failed to build the program, log: error: unknown target CPU 'generic'",
        "[2025-09-24 10:48:48.390]  opencl   error CL_BUILD_PROGRAM_FAILURE when calling "
        "clBuildProgram",
        "Error building kernel /usr/share/john/opencl/sha512_kernel.cl on NVIDIA GeForce RTX 3080",
        "ptxas fatal   : Internal Compiler Error: Segmentation violation",
        "LLVM ERROR: IGC: an unrelated project's counter overflowed",
        # the OpenCL ICD finding no platform with no Intel word, or with NVIDIA's or AMD's; an
        # OpenCL device from Direct3D 11 (every vendor's)
        "Failed to get number of OpenCL platforms: -1001.",
        "clGetPlatformIDs failed: CL_PLATFORM_NOT_FOUND_KHR (NVIDIA CUDA OpenCL ICD missing)",
        "Failed to get number of OpenCL platforms: -1001.\nFailed to set value 'opencl=ocl@dx11' "
        "for option 'init_hw_device': No such device",
        # -1001 said of something else in a text of the Intel stack
        "Intel Arc A770: the game exited with code -1001",
        # the kernel's own BAR messages (any vendor's card)
        "pci 0000:03:00.0: BAR 2: no space for [mem size 0x10000000 64bit pref]",
        # dpct's namespace in migrated CUDA code on NVIDIA, and another project's library name
        "error: use of undeclared identifier 'dpct_malloc'",
        "ImportError: libDPCTLInterface_custom.so: cannot open shared object file (Intel Arc)",
        # gmmlib's neighbours: another library of that stem, and a Python package of a Gaussian
        # mixture named gmm_helper
        "ImportError: libgmm.so: cannot open shared object file: No such file or directory",
        '  File "/app/gmm_helper/fit.py", line 12, in fit\nValueError: n_components=3 must be <= '
        "n_samples",
        # AMD's and NVIDIA's OpenCL drivers crashing as Windows names them, and libraries that
        # start as the Intel Graphics Compiler's do
        "Exception thrown at 0x00007FFB1A2C3D4E (amdocl64.dll) in clinfo.exe: 0xC0000005: Access "
        "violation",
        "Exception thrown at 0x00007FFB1A2C3D4E (nvopencl64.dll) in clinfo.exe: 0xC0000005: "
        "Access violation",
        "ImportError: libigraph.so.3: cannot open shared object file; libigcc.so missing",
        # CMake configured with another compiler: NVIDIA's, AMD's, Clang, or GCC on an Ice Lake
        # Xeon (Intel's ICX code name, not the compiler)
        "CMake Error: -DCMAKE_CXX_COMPILER=nvcc is not able to compile a simple test program "
        "(CUDA 12.4)",
        "-DCMAKE_CXX_COMPILER=hipcc: ROCm 6.1 not found",
        "cmake -DCMAKE_CXX_COMPILER=clang++ ..\nclang++: error: linker command failed with exit "
        "code 1",
        "Ice Lake server (ICX): cmake -DCMAKE_CXX_COMPILER=g++ failed to find OpenMP",
        # pip's resolver on other stacks' wheels, and on packages of no stack on an Intel machine
        "ERROR: Cannot install torch==2.1.0+cu118 and torchvision==0.16.0+rocm5.6 because these "
        "package versions have conflicting dependencies.",
        "ERROR: Cannot install numpy==1.26.4 and pandas==2.2.0 because these package versions "
        "have conflicting dependencies. (Intel Arc A770)",
        # Windows refusing a library of the wrong architecture on CUDA's stack
        "OSError: [WinError 193] %1 is not a valid Win32 application: 'C:\\cuda\\bin\\cudnn64_8.dll'",
        # the neighbours of Level Zero's, Sysman's and Unified Runtime's names (a camel-case
        # "zero", another project's ZES and UR_ prefixes) and of the GPUs' names; HIP's and the
        # CUDA driver's allocation calls
        "Writing the Arrow Lakehouse table: engine reset while the job ran",
        "ValueError: zeroPadding2D expects 4 dims (on an Intel Arc A770)",
        "UR_ROBOT_ARM_LIMIT exceeded\nFatal Python error: Segmentation fault",
        "ZESTY_CACHE_DIR=/tmp ZESTY_MODE=1: querying the available free memory failed",
        "hipMemAllocHost failed: hipErrorOutOfMemory",
        "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY",
        # the neighbours of this round's markers: another compiler driver in MSBuild's form,
        # another project's compilation error, another library's dense-tensor check, another
        # vendor's driver and platforms, another object's missing attribute
        "1>nvcc: : error : ptxas fatal : Unresolved extern function 'cudaGetDevice'",
        "cupy.cuda.compiler.CompileException: ProgramCompilationError in kernel.cu",
        "RuntimeError: view_from_dense expects dense tensor input (torch.sparse)",
        "Error: No compatible CUDA driver implementation found.",
        "clGetPlatformIDs error -1001 (AMD APP SDK, Radeon RX 6800)",
        "RuntimeError: Device 'cuda:2' could not be created.",
        "AttributeError: 'str' object has no attribute 'cuda_device'",
        # the kernel-log neighbours of the driver's lines: another GPU's driver with its PCI
        # address and firmware, another module's unknown symbols, another driver's [drm] error
        "amdgpu 0000:03:00.0: firmware: failed to load amdgpu/gc_11_0_0_mes.bin (-2)",
        "nouveau 0000:01:00.0: fifo: fault 00 [READ] at 0000000000000000",
        "nvidia: Unknown symbol drm_gem_object_free (err -2)",
        "[drm] *ERROR* ring gfx timeout, signaled seq=1234, emitted seq=1236",
        # the neighbours of a fault inside IGC's library: the same fault reports inside CUDA's,
        # HIP's and a plain program's libraries
        "Exception thrown at 0x00007FF8C1D20A11 (nvcuda.dll) in vadd.exe: 0xC0000005: Access "
        "violation writing location 0x0000000000000000.",
        "Faulting module name: amdhip64.dll, version: 5.7.32000.1\nException code: 0xc0000005",
        "#0  0x00007ffff2a1b3c4 in ?? () from /usr/lib/x86_64-linux-gnu/libcuda.so.1",
        "Segmentation fault in libamdhip64.so.6 (hipModuleLoadData)\nAborted",
        # a DLL named in a fault report, beside an Intel GPU named as the machine: the Windows
        # loader loaded it, it did not fail to
        "Running on an Intel Arc A770:\nFaulting module name: python311.dll, version: 3.11.9\n"
        "Exception code: 0xc0000005",
    ],
)  # fmt: skip
def test_a_neighbour_of_a_marker_names_no_layer(text: str) -> None:
    found = diagnose(text, KB)
    assert found.matches == [] and found.layer is None, found


def test_cli_says_a_marker_placed_text_is_a_layer_not_a_known_issue() -> None:
    """Exit 4 and JSON ``result: layer`` (no known issue) for a text placed by a new marker."""
    text = "[rank1]: torch.distributed.DistBackendError: ProcessGroupXCCL.cpp:412 allreduce failed"
    done = run_doctor("explain", "--json", text)
    assert done.returncode == 4, done.stderr
    data = json.loads(done.stdout)
    assert data["result"] == "layer" and data["matches"] == [] and not data["matched"]
    assert data["layer"]["id"] == "distributed" and data["layer"]["collect"]


def test_igcs_crash_is_tritons_entry_only_beside_tritons_module_build() -> None:
    """IGC builds every device program for the GPU: its crash banner while an OpenCL program
    builds (john #5876) is the sycl-build layer, not torch.compile's Triton entry; beside
    Triton's loader and the module-build code it is still that entry."""
    opencl = ("Build log: IGC: Internal Compiler Error: Segmentation violation\n"
              "Error building kernel /usr/share/john/opencl/ethereum_kernel.cl.")  # fmt: skip
    found = diagnose(opencl, KB)
    assert found.matches == [] and _layer(found) == "sycl-build", found
    triton = ("L0 build module failed. Log: IGC: Internal Compiler Error: Floating point exception\n"
              "Error during Intel loadBinary: ZE_RESULT_ERROR_MODULE_BUILD_FAILURE")  # fmt: skip
    found = diagnose(triton, KB)
    assert found.matches and found.matches[0].issue.id == "triton-xpu-build-failure", found


def test_the_compiler_layer_says_it_is_torch_compiles_and_sycl_build_says_the_dpcpp_compilers() -> (
    None
):
    """The two layers' titles carry the boundary: a build by icx/icpx/dpcpp/clang++ -fsycl is
    sycl-build, torch.compile's code generation is compiler."""
    titles = {layer.id: layer.title for layer in KB.layers}
    assert "torch.compile" in titles["compiler"]
    assert all(word in titles["sycl-build"] for word in ("icx", "icpx", "dpcpp", "clang++ -fsycl"))


@pytest.mark.parametrize(
    ("text", "layer"),
    [
        # a compiler's diagnostic in a source or header whose path names SYCL, in GCC's and
        # Clang's form and in MSVC's: DPC++'s headers (portBLAS #323), a library's SYCL backend
        # (kokkos #4679, alpaka #1813)
        ("/home/u/llvm/build/bin/../include/sycl/CL/sycl/half_type.hpp:120:5: error: statement "
         "not allowed in constexpr function", "sycl-build"),
        (".../kokkos-install/include/SYCL/Kokkos_SYCL_Abort.hpp:60:3: error: use of undeclared "
         "identifier '__assert_fail'", "sycl-build"),
        ("/home/u/alpaka/include/alpaka/acc/AccGenericSycl.hpp:138:52: error: no matching "
         "member function for call to 'get_info'", "sycl-build"),
        ("C:\\oneAPI\\compiler\\include\\sycl\\handler.hpp(1200): error C2338: static_assert "
         "failed", "sycl-build"),
        # the DPC++ driver's own SYCL diagnostics (RAJA #1079), an offload step failing in the
        # driver's words (intel/llvm #7269), llvm-foreach's own report
        ("clang++: error: SYCL target is invalid: 'nvptx64-nvidia-cuda-sycldevice'", "sycl-build"),
        ("clang: error: The option -fsycl-targets= must be used in conjunction with -fsycl to "
         "enable offloading.", "sycl-build"),
        ("$ icpx -fsycl vadd.cpp\nclang-19: error: sycl-post-link command failed with exit code 1 "
         "(use -v to see invocation)", "sycl-build"),
        ("[SYCL][HIP] error: amdgcn-link command failed with exit code 254", "sycl-build"),
        ("$ clang++ -fsycl vadd.cpp\nllvm-foreach: Segmentation fault (core dumped)", "sycl-build"),
        # the SYCL headers' static_assert (oneDAL #2169) and the front end refusing device code
        ('Compile Failure: "No kernel name provided without -fsycl-unnamed-lambda enabled!"',
         "sycl-build"),
        ("vadd.cpp:14:7: error: SYCL kernel cannot call a recursive function", "sycl-build"),
        ("SYCL kernel cannot call a variadic function", "sycl-build"),
        # the link of a SYCL program in LLD's and MSVC's words, and the linker not finding the
        # DPC++ compiler's own files (alpaka #62)
        ("ld.lld: error: undefined symbol: sycl::_V1::queue::submit_impl(std::function<void "
         "(sycl::_V1::handler&)>)", "sycl-build"),
        ('app.obj : error LNK2019: unresolved external symbol "__declspec(dllimport) public: '
         '__cdecl sycl::_V1::queue::~queue(void)"', "sycl-build"),
        ("ld: cannot find /opt/intel/oneapi/compiler/2021.2.0/linux/bin/intel64/../../compiler/lib/"
         "intel64_lin/i_ofldbegin_target.o: No such file or directory", "sycl-build"),
        # the build tools: Ninja's failed step running icpx (NeoN #375), its input no rule makes
        # for DPC++'s own SYCL targets (intel/llvm #1426), Make's missing SYCL target
        # (oneAPI-samples #2220), CMake's config mode not finding IntelSYCL
        ("FAILED: CMakeFiles/app.dir/main.cpp.o\n/opt/intel/oneapi/compiler/2025.0/bin/icpx "
         "-fsycl -c main.cpp", "sycl-build"),
        ("ninja: error: 'OpenCL-Headers', needed by 'tools/sycl/CMakeFiles/ocl-headers', missing "
         "and no known rule to make it", "sycl-build"),
        ("make: *** No rule to make target 'sycl_allreduce_test'.  Stop.", "sycl-build"),
        ('CMake Error at CMakeLists.txt:5 (find_package): Could not find a package configuration '
         'file provided by "IntelSYCL" with any of the following names: IntelSYCLConfig.cmake',
         "sycl-build"),
        # a oneAPI library's header whose symbol the link misses, on the header's line (oneTBB's
        # and oneDPL's headers: oneAPI-samples #754, oneDPL #510), a header of oneAPI's not found
        # compiling oneAPI's own sources (oneDAL #2053), GCC refusing oneAPI's OpenMP offload
        # flags (oneAPI-samples #2529), CMake's check of a compiler that oneAPI installed
        ("/opt/intel/oneapi/tbb/2022.0/include/oneapi/tbb/task_group.h:271: undefined reference "
         "to `tbb::detail::r1::initialize(tbb::detail::d1::task_group_context&)'", "sycl-build"),
        ("src/oneapi/dal/algo/knn/backend/gpu/infer_kernel.cpp:20:10: fatal error: "
         "'mkl_dal_sycl.hpp' file not found", "sycl-build"),
        ("~/oneAPI-samples/DirectProgramming/C++/iso3dfd/build$ make\nc++: error: unrecognized "
         "command-line option '-fopenmp-targets=spir64'", "sycl-build"),
        ("~/oneAPI-samples/DirectProgramming/C++/iso3dfd/build$ make\nc++: error: unrecognized "
         "command-line option '-fiopenmp'; did you mean '-fopenmp'?", "sycl-build"),
        ('CMake Error at /usr/share/cmake/Modules/CMakeTestCXXCompiler.cmake:73 (message):\n  The '
         'C++ compiler\n\n    "/opt/oneapi/upstream/bin/clang++"\n\n  is not able to compile a '
         "simple test program.", "sycl-build"),
        # a C++ compiler's own error on a source line that names SYCL (argonne-lcf/sycltrain #10:
        # a namespace newer DPC++ removed), and the linker finding a SYCL runtime that needs a
        # newer Unified Runtime loader (oneAPI-samples #2568)
        ("src/vadd.cpp:53:29: error: no member named 'INTEL' in namespace 'sycl'\n      using "
         "namespace sycl::INTEL::gpu;", "sycl-build"),
        ("/opt/intel/oneapi/compiler/2025.0/lib/libsycl.so: undefined reference to "
         "`urKernelSetArgValue@LIBUR_LOADER_0.11'", "sycl-build"),
        # Intel's Windows kernel-mode graphics driver named as a bug check's or a TDR's faulting
        # module (IGCIT #1431, WSL #8505)
        ("BSOD: DRIVER_IRQL_NOT_LESS_OR_EQUAL (igdkmdnd64.sys) on driver 32.0.101.8629", "driver"),
        ("The computer has rebooted from a bugcheck. VIDEO_TDR_FAILURE (116) igdkmd64.sys.",
         "driver"),
        # oneAPI's Fortran compiler's driver failing a build or refusing its command line (the
        # thirty-fifth collection's HDF5 link and fpm's options on Windows)
        ("ifx: error #10236: File not found: 'libhdf5_fortran.so.310'\nmake[3]: *** "
         "[Makefile:1058: libhdf5_fortran.la] Error 1", "sycl-build"),
        ("ifx: command line error: option '/g' is ambiguous", "sycl-build"),
        # GPUCompiler.jl refusing a oneAPI.jl kernel's IR (oneAPI.jl #95)
        ("ERROR: InvalidIRError: compiling kernel broadcast_kernel(oneAPI.oneKernelContext, "
         "oneDeviceMatrix{Float64, 1}) resulted in invalid LLVM IR", "sycl-build"),
        # dpctl's exception for a device the SYCL runtime would not create (dpnp #2617), and the
        # Intel OpenCL runtime's own namespace in a crash's frame (OpenCL-SDK #125)
        ("dpctl._sycl_device.SyclDeviceCreationError: Default device is unavailable.", "runtime"),
        ("==5083==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000008\n    #0 in "
         "Intel::OpenCL::Framework::PlatformModule::GetPlatformInfo(_cl_platform_id*)", "runtime"),
        # oneDNN's own harness failing to create its CPU engine, the device filter among the
        # reasons it lists (oneDNN #1700)
        ("ERROR: can't create CPU engine. Possible reasons for this error:\n- Incorrect "
         "SYCL_DEVICE_FILTER. The filter must be either unset or include 'opencl:cpu' devices.",
         "onednn"),
    ],
)  # fmt: skip
def test_a_build_tools_diagnostic_of_a_sycl_build_names_sycl_build(text: str, layer: str) -> None:
    """The compilers', linkers' and build tools' own diagnostic forms, where what they name is a
    SYCL build (a SYCL path, DPC++'s options, tools and runtime symbols), place the text in
    sycl-build; dpctl's and Intel's OpenCL runtime's own names in the runtime, oneDNN's harness's
    own message in onednn."""
    found = diagnose(text, KB)
    assert found.matches == [] and _layer(found) == layer, found


@pytest.mark.parametrize(
    ("text", "layer"),
    [
        # the other SYCL implementations' trees (AdaptiveCpp, formerly hipSYCL; ComputeCpp;
        # triSYCL) and a warning in DPC++'s headers: no SYCL build of the Intel stack failed
        ("/opt/AdaptiveCpp/include/AdaptiveCpp/hipSYCL/sycl/libkernel/host/builtins.hpp:85:10: "
         "error: no member named 'fabs' in namespace 'std'", None),
        ("/opt/ComputeCpp-CE-2.11/include/SYCL/accessor.h:100:5: error: static_assert failed", None),
        ("/usr/include/triSYCL/sycl/queue.hpp:42:1: error: expected ';' after expression", None),
        ("/opt/intel/oneapi/compiler/2024.2/include/sycl/handler.hpp:1200:5: warning: "
         "'parallel_for' is deprecated", None),
        # the same form of error in another SYCL implementation's headers (AdaptiveCpp) or a
        # CUDA source that names SYCL beside hipSYCL: no build of the Intel stack; a runtime's
        # message carrying a source location is the runtime's, with no "error:" after the line
        ("/opt/AdaptiveCpp/include/AdaptiveCpp/sycl/queue.hpp:42:1: error: no member named "
         "'submit_barrier' in namespace 'sycl'", None),
        ("kernels.cu:12:3: error: no member named 'queue' in namespace 'sycl' (hipSYCL)", None),
        ("ggml/src/ggml-sycl/common.hpp:115: SYCL error: CHECK_TRY_ERROR(stream->wait())",
         "runtime"),
        ("main.cpp:10:5: error: use of undeclared identifier 'cudaMalloc' (Intel Arc)", None),
        # NVIDIA's and AMD's kernel-mode drivers in the same bug checks, and a copy of Intel's
        # driver file under another name
        ("VIDEO_TDR_FAILURE (116) nvlddmkm.sys", None),
        ("SYSTEM_SERVICE_EXCEPTION amdkmdag.sys", None),
        ("copied igdkmd64.sys.bak to the desktop", None),
        # classic ifort's identical diagnostic (not oneAPI's LLVM compilers), ifx's warnings alone,
        # and a driver whose name only ends in ifx
        ("ifort: error #10236: File not found: 'libhdf5_fortran.so.310'", None),
        ("ifx: command line warning #10006: ignoring unknown option '-rpath'", None),
        ("myifx: error: bad input (Intel Arc)", None),
        # nvcc's form in a CUDA source that names a variable after SYCL
        ('kernel.cu(12): error: identifier "sycl_queue" is undefined', None),
        # the same drivers' and tools' diagnostics of no SYCL build, beside an Intel word: Clang's
        # other errors, LLD's, GNU ld's, Ninja's, Make's and CMake's on other inputs
        ("clang++: error: no such file or directory: 'vadd.cpp' (oneAPI 2025.0 installed)", None),
        ("lld-link: error: undefined symbol: __cudaRegisterFatBinary (oneAPI 2025 installed beside "
         "CUDA 12)", None),
        ("/usr/bin/ld: cannot find -lcudart (oneAPI 2025.0 is installed)", None),
        ("FAILED: CMakeFiles/app.dir/main.cpp.o\n/usr/bin/g++ -O2 -c main.cpp (on an Intel Arc "
         "A770)", None),
        ("ninja: error: 'libcuda.so', needed by 'bin/app', missing and no known rule to make it "
         "(Intel Arc)", None),
        ("make: *** No rule to make target 'install'.  Stop. (Intel Arc)", None),
        # the linker's and the preprocessor's words on a line that names no oneAPI path, in a text
        # that names oneAPI elsewhere; a compiler outside oneAPI's tree failing CMake's check
        ("/usr/bin/ld: main.o: undefined reference to `cublasCreate_v2' (oneAPI 2025 installed)",
         None),
        ("src/app/main.cpp:3:10: fatal error: 'cuda_runtime.h' file not found (oneAPI installed)",
         None),
        ('CMake Error:\n  The C++ compiler\n\n    "/usr/local/cuda/bin/nvcc"\n\n  is not able to '
         "compile a simple test program. (Intel Arc A770)", None),
        ('CMake Error: Could not find a package configuration file provided by "CUDAToolkit" '
         "(Intel Arc A770)", None),
        ("Intel Arc: the SYCL kernel cannot be launched twice from one thread", None),
        # the linker's failure through torch.compile's C++ build on XPU: the compiler layer's
        # frames, not an offload step of a SYCL compilation
        ('  File "/venv/lib/python3.12/site-packages/torch/_inductor/cpp_builder.py", line 320, in '
         "build\nclang++: error: linker command failed with exit code 1 (use -v to see "
         "invocation)\ntorch._inductor.exc.InductorError: on xpu", "compiler"),
        # DPC++'s option on the command line above a run's own error: the runtime's code
        ("$ icpx -fsycl -fsycl-unnamed-lambda vadd.cpp -o vadd && ./vadd\nRuntimeError: UR error",
         "runtime"),
        # another library's exception of a similar name (wgpu's, on Vulkan)
        ("wgpu error: DeviceCreationError: the adapter returned no device (Intel Arc A770, "
         "Vulkan)", None),
        # another program that cannot create its engine, with no reasons listed
        ("ERROR: can't create CPU engine for the physics step (Intel Arc A770)", None),
        # dpctl's filter string that names no device stays the selection layer's (dpctl #1027)
        ("dpctl._sycl_queue.SyclQueueCreationError: SYCL Device 'opencl:gpu:2' could not be "
         "created.", "selection"),
    ],
)  # fmt: skip
def test_a_neighbour_of_a_build_tools_diagnostic_is_not_sycl_build(
    text: str, layer: str | None
) -> None:
    found = diagnose(text, KB)
    assert found.matches == [] and _layer(found) == layer, found


@pytest.mark.parametrize(
    "text",
    [
        # DPC++'s filter_selector naming no device, in its newer form (no code) and its older
        # one (the no-device code, intel/llvm #7897): a filter string was given
        "terminate called after throwing an instance of 'sycl::_V1::exception'\n  what():  Could "
        "not find a device that matches the specified filter(s)!",
        "./a.out level_zero:gpu:3\nterminate called after throwing an instance of "
        "'sycl::_V1::runtime_error'\n  what():  Could not find a device that matches the "
        "specified filter(s)! -1 (PI_ERROR_DEVICE_NOT_FOUND)\nAborted",
    ],
)
def test_a_filter_that_names_no_device_is_the_selection_layers(text: str) -> None:
    """The selector's own words say a filter was given: the no-device code's cause of that
    layer goes first, and without the code the layer is named."""
    found = diagnose(text, KB)
    first = found.matches[0].issue.layer if found.matches else _layer(found)
    assert first == "selection", found


@pytest.mark.parametrize(
    "text",
    [
        # the no-device code with no filter in sight: the selection layer is no better a guess
        "terminate called after throwing an instance of 'sycl::_V1::runtime_error'\n  what():  "
        "No device of requested type 'info::device_type::gpu' available. -1 "
        "(PI_ERROR_DEVICE_NOT_FOUND)",
        # the same words from another program, with no word of the Intel stack
        "adb: error: Could not find a device that matches the specified filter (serial emulator-5554)",
    ],
)
def test_a_neighbour_of_the_filter_selectors_words_is_not_the_selection_layers(text: str) -> None:
    found = diagnose(text, KB)
    first = found.matches[0].issue.layer if found.matches else _layer(found)
    assert first != "selection", found


@pytest.mark.parametrize(
    ("text", "layer"),
    [
        # intel_gpu_top's own refusals (igt-gpu-tools' intel_gpu_top.c), alone, after its name,
        # and as a monitor built on it repeats them (btop #942): the i915 PMU, the driver's
        ("Failed to initialize PMU! (Permission denied)", "driver"),
        ("$ sudo intel_gpu_top\nFailed to detect engines! (No such file or directory)\n(Kernel "
         "4.16 or newer is required for i915 PMU support.)", "driver"),
        ("[BUG] WARNING: Intel GPU: Failed to initialize PMU", "driver"),
        # a monitor that lowers the tool's words (a Frigate build on Synology), the tool's notice
        # naming the PMU alone (MangoHud #661), and its own assertion on the driver's sysfs in an
        # unprivileged container (ProxmoxVE #8445)
        ("unable to poll intel gpu stats: failed to initialize pmu! (invalid argument)", "driver"),
        ("(Kernel 4.16 or newer is required for i915 PMU support.)", "driver"),
        ("../tools/intel_gpu_top.c:557: get_num_gts: Assertion !errno || errno == ENOENT failed",
         "driver"),
        # GVT-g's own log lines and KVMGT, its module for KVM (gvt-linux #60, MobilePassThrough
        # #31); ONNX Runtime's oneDNN execution provider (onnxruntime #10275)
        ("[  176.865018] gvt: vgpu 1: MI_LOAD_REGISTER_IMM handler error\n[  176.865023] GVT "
         "Internal error  for the guest", "driver"),
        ("modprobe: ERROR: could not insert 'kvmgt': No such device", "driver"),
        ("DnnlExecutionProvider' is not in available providers", "onednn"),
        # i915's and xe's line for one GT of the GPU, its device prefix cut off (extensions #553)
        ("[drm] GT1: can't init GSC proxy due to missing mei component", "driver"),
        # i915's request after an error, under FreeBSD's drm-kmod (drm-kmod #210)
        ("drmn0: [drm] *ERROR* bridge device not found\ndrmn0: Please file a bug on drm/i915; see "
         "https://gitlab.freedesktop.org/drm/intel/-/wikis/How-to-file-i915-bugs for details.",
         "driver"),
        # a driver error two log lines above a display pipe's: the pipe's line alone is the
        # panel's, the line above it still counts (intel-gpu-i915-backports #36)
        ("[    6.908358] i915 0000:00:02.0: [drm] *ERROR* conflict detected with stolen region: "
         "[mem 0x7c000000-0x7fffffff]\n[    6.912262] i915 0000:00:02.0: [drm] couldn't get "
         "memory information\n[    6.924630] i915 0000:00:02.0: [drm] *ERROR* Fault errors on "
         "pipe A: 0x00000080", "driver"),
        # the i915 firmware as FreeBSD's drm-kmod reports it, with no Linux device prefix
        ("drmn0: could not load firmware image 'i915/kbl_dmc_ver1_04.bin'", "driver"),
        ("i915kms: drmn0: [drm] Failed to load DMC firmware. Disabling runtime power management.",
         "driver"),
        # oneAPI's compilers as CMake, Meson, configure and the shell name them
        ("-- The CXX compiler identification is IntelLLVM 2024.0.0\nCMake Error at "
         "CMakeLists.txt:10 (message):\n  Unsupported compiler", "sycl-build"),
        ("meson.build:4:0: ERROR: Unknown compiler(s): [['icx']]", "sycl-build"),
        ("CMake Warning at copts.cmake:91 (message):\n  Unknown compiler: /usr/local/bin/icpx.",
         "sycl-build"),
        ("./configure CC=icx CXX=icpx\nconfigure: error: C compiler cannot create executables",
         "sycl-build"),
        ("[ 63%] Building CXX object app.o\n/bin/sh: 1: icpx: not found", "sycl-build"),
        ("meson 0.56.0 errors out with Intel(R) oneAPI DPC++ Compiler 2021.1", "sycl-build"),
        # a SYCL header that the build does not find, in clang's, GCC's and MSVC's words
        ("src/kernel.cpp:3:10: fatal error: 'sycl/accessor.hpp' file not found", "sycl-build"),
        ("main.cpp:1:10: fatal error: CL/sycl.hpp: No such file or directory", "sycl-build"),
        ("main.cpp(1): fatal error C1083: Cannot open include file: 'sycl/sycl.hpp': No such file "
         "or directory", "sycl-build"),
        # a project's check that the compiler is DPC++, and DPC++'s own per-image tool failing
        ("CMake Error at cmake/dpcpp_driver_check.cmake:36 (message):\n  GNU doesn't support "
         "-fsycl flag.", "sycl-build"),
        ("[100%] Linking CXX shared library libdnnl.so\nllvm-foreach: Segmentation fault (core "
         "dumped)", "sycl-build"),
    ],
)  # fmt: skip
def test_a_build_tools_or_monitors_word_of_the_stack_names_its_layer(text: str, layer: str) -> None:
    """The Intel stack's own words as build systems, monitors and FreeBSD print them, each alone
    in a text: the text names the stack and the layer the corpus's protocol gives it."""
    found = diagnose(text, KB)
    assert found.matches == [] and _layer(found) == layer, found


@pytest.mark.parametrize(
    "text",
    [
        # another vendor's monitors and a CPU's counters: no i915 PMU was asked for
        "No GPU to monitor.",
        "amdgpu_top: Failed to open /dev/dri/renderD128 (Permission denied)",
        "armv8-pmu: Failed to initialize PMU (-19)",
        "perf: Failed to initialize PMU (Permission denied); CAP_PERFMON is required",
        "perf: failed to initialize pmu for the cpu's uncore counters",
        "(Kernel 4.16 or newer is required for amdgpu PMU support.)",
        # another driver's request, and a display pipe's line alone (the panel's, not the stack)
        "drmn0: Please file a bug on drm/amdgpu",
        # a word that only contains GVT's, and ONNX Runtime's other providers
        "libgvt: vgpu-less build",
        "CUDAExecutionProvider' is not in available providers",
        "[drm] Initialized amdgpu 3.54.0 20150101 for 0000:03:00.0 on minor 0",
        "[drm] GTT: 7943M of GTT memory ready.",
        "[    6.924630] i915 0000:00:02.0: [drm] *ERROR* Fault errors on pipe A: 0x00000080\n"
        "[    6.924667] i915 0000:00:02.0: [drm] *ERROR* Fault errors on pipe B: 0x00000080",
        # another driver's firmware under FreeBSD and Linux
        "drmn0: could not load firmware image 'amdgpu/polaris10_mc.bin'",
        "iwlwifi 0000:00:14.3: Failed to load firmware chunk!",
        # the classic Intel compilers (icc, icpc) and other compilers, in the same build tools'
        # forms: not oneAPI's DPC++/C++ compilers
        "-- The CXX compiler identification is Intel 19.1.3.20200925\nCMake Error: Unsupported "
        "compiler",
        "./configure CC=icc CXX=icpc\nconfigure: error: C compiler cannot create executables",
        "meson.build:4:0: ERROR: Unknown compiler(s): [['cc'], ['gcc'], ['clang']]",
        "./configure CC=gcc CXX=g++\nchecking if C and C++ are link compatible... no",
        "/bin/sh: 1: clang++: not found",
        "icc: command not found",
        # ifx, oneAPI's Fortran compiler, shares CMake's IntelLLVM id but builds no SYCL
        "-- The Fortran compiler identification is IntelLLVM 2024.0.0\nCMake Error: Unsupported "
        "compiler",
        # Cisco's ICX switches, and icx inside other words
        "ssh admin@ICX-7150: not found",
        "Unknown compiler: /opt/tools/bin/quicx",
        "./configure CC=/usr/bin/picx-gcc",
        # a header of another kind, and a SYCL header in another implementation's build
        "main.cu:1:10: fatal error: 'cuda_runtime.h' file not found",
        "acpp -O2 main.cpp\nmain.cpp:1:10: fatal error: 'sycl/sycl.hpp' file not found",
    ],
)  # fmt: skip
def test_a_neighbour_of_a_build_tools_or_monitors_word_names_nothing(text: str) -> None:
    found = diagnose(text, KB)
    assert found.matches == [] and found.layer is None, found


@pytest.mark.parametrize(
    ("text", "layer"),
    [
        # daal4py's SYCL extension (built only for scikit-learn-intelex's DPC++ build) absent
        ("ModuleNotFoundError: No module named 'daal4py._oneapi'", "integration"),
        # Spack's build system for Intel's oneAPI packages in a traceback, and Spack's own log
        # lines about one of those packages
        ("==> Error: RuntimeError: install failed\n\n/opt/spack/lib/spack/spack/build_systems/"
         "oneapi.py:61, in install:", "install"),
        ("==> intel-oneapi-mkl: Executing phase: 'install'\n==> Error: ProcessError: Command "
         "exited with status 1", "install"),
        ("$ spack install intel-oneapi-compilers\n==> Error: There are no valid versions for "
         "intel-oneapi-compilers that match ':'", "install"),
        # pip's resolver, where a package of the stack is among those it lists
        ("ERROR: Cannot install dpcpp-cpp-rt==2025.0.4 and torch==2.6.0+xpu because these "
         "package versions have conflicting dependencies.", "install"),
        ("ERROR: Cannot install torch==2.3.1, torchvision==0.18.1 and intel-extension-for-"
         "pytorch==2.3.110+xpu because these package versions have conflicting dependencies.",
         "install"),
        # IPEX's (and the early Triton XPU backend's) setup.py finding no oneAPI compiler
        ('File "C:\\src\\intel-extension-for-pytorch\\setup.py", line 431, in get_xpu_compliers'
         '\n    raise RuntimeError("Failed to find compiler path from OS PATH")', "sycl-build"),
        # Triton's JIT without a backend for the xpu device
        ("ValueError: Cannot find backend for xpu", "compiler"),
        # the compute runtime's own Level Zero driver sources in its abort, over the SYCL
        # runtime's message above it
        ("No device of requested type available. -1 (CL_DEVICE_NOT_FOUND)\nAbort was called at "
         "713 line in file:\n/build/intel-opencl-20.18.16699/level_zero/core/source/device/"
         "device_imp.cpp\nAborted (core dumped)", "level-zero"),
        # ipex-llm's own native kernels, over the ggml SYCL name of their function
        ("ollama_llama_server: /home/runner/_work/llm.cpp/llm.cpp/llm.cpp/bigdl-core-xe/"
         "llama_backend/sdp_xmx_kernel.cpp:439: auto ggml_sycl_op_sdp_xmx_casual(fp16 *): "
         "Assertion failed", "integration"),
        # DPC++'s accessor refusing a zero-sized buffer: the code's; with the runtime's PI code
        # beside it, that code's signature says the runtime's
        ("terminate called after throwing an instance of 'cl::sycl::invalid_object_error'\n  "
         "what():  SYCL buffer size is zero. To create a device accessor, SYCL buffer size must "
         "be greater than zero. -30 (CL_INVALID_VALUE)", "code"),
        ("terminate called after throwing an instance of 'sycl::_V1::invalid_object_error'\n  "
         "what():  SYCL buffer size is zero. To create a device accessor, SYCL buffer size must "
         "be greater than zero. -30 (PI_ERROR_INVALID_VALUE)", "runtime"),
        # a fault inside Intel's OpenCL CPU runtime's own libraries, as Windows reports it
        ("Faulting module name: task_executor64.dll, version: 5.2.0.10094\nException code: "
         "0xc0000005\nFaulting module path: C:\\Program Files (x86)\\Common Files\\Intel\\"
         "OpenCL\\bin\\x64\\task_executor64.dll", "runtime"),
        ("Faulting module name: intelocl64.dll (Intel Arc A770, oneAPI 2024.1)", "runtime"),
        # numba-dpex's (numba-dppy's) check for a device beyond the host, in both its forms
        ("UserWarning: dpctl could not find any non-host SYCL device on the system. A non-host "
         "SYCL device is required to use numba_dppy.", "runtime"),
        ("ImportError: No non-host SYCL device found to execute kernels.", "runtime"),
        # dpctl refusing the first device of a type, or a filter with no index: none is visible
        # (a later index is a filter naming no device: the selection layer's)
        ("SyclQueueCreationError: SYCL Device 'gpu:0' could not be created.", "runtime"),
        ("dpctl._sycl_device.SyclDeviceCreationError: SYCL Device 'level_zero:gpu' could not be "
         "created.", "runtime"),
        ("dpctl._sycl_queue.SyclQueueCreationError: SYCL Device 'opencl:gpu:2' could not be "
         "created.", "selection"),
        ("SyclDeviceCreationError: SYCL Device 'level_zero:gpu:10' could not be created.",
         "selection"),
    ],
)  # fmt: skip
def test_an_intel_components_own_message_or_structure_names_its_layer(
    text: str, layer: str
) -> None:
    """A stable message or structure of a named component of the Intel stack (daal4py's SYCL
    module, Spack's oneAPI packages, pip's resolver over the stack's wheels, IPEX's setup.py,
    Triton's JIT for xpu, the compute runtime's sources, ipex-llm's kernels, DPC++'s accessor
    check) places a text in the layer the corpus's protocol gives it."""
    found = diagnose(text, KB)
    assert found.matches == [] and _layer(found) == layer, found


@pytest.mark.parametrize(
    "text",
    [
        # daal4py's CPU module, and other packages' native modules: oneDAL on the CPU, CuPy
        "ModuleNotFoundError: No module named 'daal4py._daal4py'",
        "ModuleNotFoundError: No module named 'daal4py'",
        "ModuleNotFoundError: No module named 'cupy._core'",
        # Spack installing another vendor's packages, or a build with the classic Intel compiler
        "==> cuda: Executing phase: 'install'\n==> Error: ProcessError: Command exited with "
        "status 1",
        "==> Error: There are no valid versions for rocm-core that match ':'",
        "==> Error: RuntimeError: install failed\n\n/opt/spack/lib/spack/spack/build_systems/"
        "cuda.py:61, in install:",
        "==> Error: lammps-20210310-o6ikbt7: Package was not installed\n==> Error: Installation "
        "request failed.",
        "==> Installing cuda\n==> Downloading https://formulae.brew.sh/api/cask.jws.json",
        # pip's resolver over CUDA, ROCm and plain Python packages
        "ERROR: Cannot install torch==2.6.0+cu124 and torchvision==0.20.0 because these package "
        "versions have conflicting dependencies.",
        "ERROR: Cannot install torch==2.5.1+rocm6.2 and pytorch-triton-rocm==3.0.0 because these "
        "package versions have conflicting dependencies.",
        "ERROR: Cannot install numpy==2.1.0 and pandas==1.5.3 because these package versions "
        "have conflicting dependencies.",
        # the same refusal of a setup.py with no word of the stack, and other compilers' words
        'raise RuntimeError("Failed to find compiler path from OS PATH")',
        "error: Microsoft Visual C++ 14.0 or greater is required.",
        "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install "
        "root.",
        # Triton's JIT for other devices
        "ValueError: Cannot find backend for cpu",
        "ValueError: Cannot find backend for cuda",
        # another vendor's driver sources in an abort, and ggml's other backends' sources
        "Abort was called at 713 line in file:\n/build/rocclr/device/rocm/rocdevice.cpp",
        "ggml/src/ggml-cuda/fattn.cu:439: ERROR: CUDA kernel has no device code",
        # another stack's zero-sized buffers
        "CUDA error: invalid argument: buffer size is zero",
        # NVIDIA's and AMD's OpenCL drivers faulting, and on an Intel machine
        "Faulting module name: nvopencl64.dll, version: 31.0.15.3623",
        "Faulting module name: amdocl64.dll (Intel Core i7-12700 host)",
        "Faulting module name: amdocl64.dll, version: 10.0.3188.0 (Intel Arc A770)",
        # another framework's check for a device beyond the host, and another vendor's device
        "RuntimeError: No non-host device found (CUDA unavailable)",
        "RuntimeError: Device 'cuda:0' could not be created.",
        # the same shapes on an Intel machine, where the words of the rule are absent: daal4py's
        # CPU module, Spack building a package of no stack, Triton's JIT for the CPU
        "ModuleNotFoundError: No module named 'daal4py._daal4py' (Intel Arc A770)",
        "==> hdf5: Executing phase: 'install'\n==> Error: ProcessError: Command exited with "
        "status 2 (Intel Arc A770)",
        "==> Error: There are no valid versions for hdf5 that match ':' (Intel Arc A770)",
        "==> Error: RuntimeError: install failed\n/opt/spack/lib/spack/spack/build_systems/"
        "autotools.py:61, in install: (Intel Arc A770)",
        "ValueError: Cannot find backend for cpu (Intel Arc A770)",
        # pip's resolver with an Intel word after its "because": not a package it lists
        "ERROR: Cannot install numpy==1.26.4 and pandas==2.2.0 because these package versions "
        "have conflicting dependencies. Running on an Intel Arc A770",
        "clCreateBuffer failed: CL_INVALID_BUFFER_SIZE",
    ],
)  # fmt: skip
def test_a_neighbour_of_an_intel_components_own_message_names_nothing(text: str) -> None:
    found = diagnose(text, KB)
    assert found.matches == [] and found.layer is None, found


@pytest.mark.parametrize(
    ("text", "layer"),
    [
        # the system's package managers refusing one of the GPU compute runtime's own packages:
        # apt's unmet dependency, dpkg's unconfigured package and archive, dnf's and rpm's forms
        ("The following packages have unmet dependencies:\n intel-opencl-icd : Depends: "
         "intel-igc-opencl-2 (= 2.5.6) but 1.0.17537.20 is to be installed", "install"),
        (" libze-intel-gpu1 : Depends: libigdgmm12 (>= 22.5.2) but 22.3.17 is to be installed",
         "install"),
        ("dpkg: dependency problems prevent configuration of intel-level-zero-gpu:\n "
         "intel-level-zero-gpu depends on intel-igc-core (= 1.0.17537.20); however:", "install"),
        ("dpkg: error processing archive /tmp/neo/intel-opencl-icd_24.35.30872.22_amd64.deb "
         "(--install):", "install"),
        (" intel-opencl-icd (24.35.30872.22) breaks intel-opencl and is installed.", "install"),
        ("Error:\n Problem: conflicting requests\n  - nothing provides intel-igc-opencl = "
         "1.0.15985.7 needed by intel-opencl-23.43.27642.18-1.el9.x86_64", "install"),
        ("Problem: package intel-level-zero-gpu-1.3.27642-1.el8.x86_64 requires "
         "libigdgmm.so.12()(64bit), but none of the providers can be installed", "install"),
        ("Error: Transaction test error:\n  file /usr/lib64/libigc.so.1 from install of "
         "intel-igc-core-1.0.15985-1.el9.x86_64 conflicts with file from package "
         "intel-igc-1.0.10409-1.el9.x86_64", "install"),
        # apt removing them to resolve a conflict (the legacy runtime's packages among them)
        ("The following packages will be REMOVED:\n  intel-level-zero-gpu-legacy1 "
         "intel-opencl-icd-legacy1", "install"),
        # oneAPI.jl's own check for a usable Level Zero driver and device
        ("ERROR: LoadError: oneAPI.jl is not functional on this system", "level-zero"),
        # pip's report of an installed package's broken pin on one of the stack's wheels
        ("torch 2.7.0+xpu requires intel-cmplr-lib-ur==2025.1.1, but you have "
         "intel-cmplr-lib-ur 2025.0.5 which is incompatible.", "install"),
        # source builds of the compute runtime's own compilers: IGC's tree, vc-intrinsics',
        # opencl-clang's, and the linker missing gmmlib's library
        ("IGC/Compiler/CISACodeGen/EmitVISAPass.cpp:1234:5: error: no matching function for "
         "call to 'getAlign'", "level-zero"),
        ("CMake Error at IGC/BiFModule/CMakeLists.txt:88 (message):\n  clang was not found",
         "level-zero"),
        ("GenXIntrinsics/lib/GenXIntrinsics/GenXIntrinsics.cpp:512:30: error: 'class "
         "llvm::Attribute' has no member named 'getWithAlignment'", "level-zero"),
        ("/usr/bin/ld: cannot find -ligdgmm: No such file or directory", "level-zero"),
        ("opencl-clang/common_clang.cpp:112:5: error: no member named 'setPreserveAuxData' in "
         "'SPIRV::TranslatorOpts'", "level-zero"),
        # the kernel's firmware loader failing a file of i915's or xe's folder; GVT-g's vGPU types
        ("Direct firmware load for i915/dg2_guc_70.bin failed with error -2", "driver"),
        ("Direct firmware load for xe/bmg_guc_70.bin failed with error -2", "driver"),
        ("$ echo $UUID > /sys/bus/pci/devices/0000:00:02.0/mdev_supported_types/i915-GVTg_V5_8/"
         "create\nbash: echo: write error: No space left on device", "driver"),
        # a crash inside oneAPI's compiler binaries, Spack building with them, DPC++'s kernel
        # argument check, oneMKL's SYCL targets
        ("#5 0x00005612a1b2c3d4 clang::Sema::ActOnFinishFunctionBody(clang::Decl*, clang::Stmt*) "
         "(/opt/intel/oneapi/compiler/2024.2/bin/compiler/clang+++0x3f1a2b)", "sycl-build"),
        ("/opt/intel/oneapi/compiler/2023.1.0/linux/bin-llvm/clang++(_ZN4llvm3sys15PrintStackTrace"
         "ERNS_11raw_ostreamEi+0x31)[0x55c2043afded]", "sycl-build"),
        ("kokkos@4.4.01 %oneapi@2024.2.1 build fails: make: *** [Makefile:136: all] Error 2",
         "sycl-build"),
        ("Gemm_Impl.hpp:229:24: error: 'BatchedGemm<Kokkos::Experimental::SYCL> &' cannot be used "
         "as the type of a kernel parameter", "sycl-build"),
        ('CMake Error at src/CMakeLists.txt:40 (add_library):\n  Target "solver" links to target '
         '"MKL::MKL_SYCL::BLAS" but the target was not found.', "sycl-build"),
    ],
)  # fmt: skip
def test_the_package_managers_and_builds_of_the_gpu_runtimes_components_name_their_layer(
    text: str, layer: str
) -> None:
    """Package managers refusing the GPU compute runtime's own packages (by their packaged
    names), pip breaking a pin on the stack's wheels, source builds of the runtime's compilers
    (IGC, vc-intrinsics, opencl-clang, gmmlib's library), i915's and xe's firmware and GVT-g's
    vGPU types, and builds by oneAPI's compilers (their binaries crashing, Spack's %oneapi,
    DPC++'s kernel argument check, oneMKL's SYCL targets) place a text in the layer the
    corpus's protocol gives it."""
    found = diagnose(text, KB)
    assert found.matches == [] and _layer(found) == layer, found


@pytest.mark.parametrize(
    "text",
    [
        # the same package managers' forms for another vendor's, Mesa's or another Intel package
        "The following packages have unmet dependencies:\n nvidia-driver-535 : Depends: "
        "nvidia-kernel-common-535 (= 535.183.01-0ubuntu1) but it is not going to be installed",
        " rocm-opencl-runtime : Depends: rocm-core (= 6.2.0.60200-66~22.04) but 6.1.0 is to be "
        "installed",
        " mesa-opencl-icd : Depends: libclc-15 (>= 1:15.0.7) but it is not installable\n"
        "Intel Arc A770, Ubuntu 22.04",
        " intel-microcode : Depends: iucode-tool (>= 1.0) but it is not installable",
        "dpkg: dependency problems prevent configuration of nvidia-opencl-icd-535:\n "
        "nvidia-opencl-icd-535 depends on libnvidia-compute-535; however:",
        "dpkg: error processing package intel-microcode (--configure):\n installed intel-microcode "
        "package post-installation script subprocess returned error exit status 1",
        "Error:\n Problem: conflicting requests\n  - nothing provides libclc = 15.0.7 needed by "
        "mesa-libOpenCL-23.1.9-1.fc39.x86_64 (Intel UHD Graphics 630)",
        "Error: Transaction test error:\n  file /usr/lib64/libOpenCL.so.1 from install of "
        "ocl-icd-2.3.2-1.fc39.x86_64 conflicts with file from package "
        "khronos-opencl-icd-loader-2023.04.17-1.fc39.x86_64 (Intel Arc A750)",
        "Problem: package rocm-opencl-6.0.2-1.fc40.x86_64 requires libamd_comgr.so.2()(64bit), "
        "but none of the providers can be installed",
        "The following packages will be REMOVED:\n  libnvidia-compute-535 nvidia-driver-535 "
        "(Intel Arc A770 machine)",
        "The following packages will be REMOVED:\n  intel-microcode iucode-tool",
        # another Julia package's same words
        "ERROR: LoadError: CUDA.jl is not functional on this system (Intel Arc A770 machine)",
        "Metal.jl is not functional on this system",
        # pip's broken pins on plain Python, CUDA and the CPU's OpenMP packages
        "torchaudio 2.0.2 requires torch==2.0.1, but you have torch 1.13.1 which is incompatible.",
        "embeddedllm 0.2.1+ipex requires huggingface-hub~=0.24.3, but you have huggingface-hub "
        "0.25.1 which is incompatible.",
        "mkl 2021.4.0 requires intel-openmp==2021.*, but you have intel-openmp 2024.1.0 which is "
        "incompatible.",
        "torch 2.5.1+cu124 requires nvidia-cudnn-cu12==9.1.0.70, but you have nvidia-cudnn-cu12 "
        "9.5.0 which is incompatible.",
        # LLVM's, Mesa's, the Khronos translator's and ROCm's trees; other drivers' libraries
        "/llvm-project/llvm/lib/Transforms/Scalar/SROA.cpp:120:5: error: use of undeclared "
        "identifier 'foo' (Intel Arc A770 host)",
        "mesa/src/compiler/clc/clc_helpers.cpp:812:7: error: no member named 'setMemToRegEnabled' "
        "in 'SPIRV::TranslatorOpts' (Intel UHD Graphics 630)",
        "SPIRV-LLVM-Translator/lib/SPIRV/SPIRVWriter.cpp:117:10: error: 'class "
        "SPIRV::TranslatorOpts' has no member named 'setEmitFunctionPtrAddrSpace' (Intel Arc A770)",
        "ROCm-CompilerSupport/lib/comgr/src/comgr-compiler.cpp:340:19: error: no member named "
        "'setMemToRegEnabled'",
        "/usr/bin/ld: cannot find -ldrm_intel (Intel Arc A770)",
        "CMake Error at src/gallium/CMakeLists.txt:107 (add_subdirectory): given source which is "
        "not an existing directory (Intel Arc A770)",
        # other drivers' firmware, Intel's Wi-Fi and Bluetooth firmware among them; NVIDIA's vGPU
        "Direct firmware load for amdgpu/navi10_gpu_info.bin failed with error -2",
        "Direct firmware load for iwlwifi-so-a0-gf-a0-72.ucode failed with error -2 (Intel Wi-Fi "
        "6E AX211)",
        "Direct firmware load for intel/ibt-0040-0041.sfi failed with error -2 (Intel Arc A770 "
        "machine)",
        "Direct firmware load for rtl_nic/rtl8168h-2.fw failed with error -2 (Intel Arc A770 "
        "machine)",
        "/bin/sh: line 0: echo: write error: No space left on device (writing /sys/class/mdev_bus/"
        "0000:01:00.0/mdev_supported_types/nvidia-63/create)",
        "/bin/sh: echo: write error: No space left on device (Intel Arc A770 machine)",
        # another clang crashing, Spack's other compilers, %oneapi among compilers that all fail
        "#22 0x000055b29e33326a clang::ParseAST(clang::Sema&, bool, bool) (/usr/lib/llvm-18/bin/"
        "clang+++0x410726a) on an Intel Arc A770",
        "/opt/rocm/llvm/bin/clang++(_ZNK5clang6driver11Compilation14ExecuteCommandERKNS0_7Command"
        "ERPS3_+0xbd)[0x55c2043afded]",
        "hdf5@1.14.3 %gcc@11.4.0 build fails: error: conflicting types for 'H5Pget' (Intel Arc "
        "A770 machine)",
        "variorum@0.4.1 %oneapi, %gcc build fails: ld: Intel/CMakeFiles/variorum_intel.dir/"
        "IvyBridge_3E.c.o:(.bss+0x0): multiple definition of `g_platform'",
        "petsc@3.20 %gcc, %oneapi build fails: multiple definition of `foo'",
        "butterflypack@2.1.1 %intel build fails: error #5192: Lead underscore not allowed (Intel "
        "Arc A770 machine)",
        # oneMKL's CPU target and CUDA's targets
        'CMake Error: Target "app" links to target "MKL::MKL" but the target was not found. (Intel '
        "Arc A770)",
        'CMake Error: Target "app" links to target "CUDA::cublas" but the target was not found.',
    ],
)  # fmt: skip
def test_a_neighbour_of_the_gpu_runtimes_packages_and_builds_names_nothing(text: str) -> None:
    found = diagnose(text, KB)
    assert found.matches == [] and found.layer is None, found


def test_an_intel_package_outside_the_compute_runtime_is_not_the_install_layers() -> None:
    """The media driver's unmet dependency on gmmlib is no install of the compute runtime: the
    package apt refuses is the one named (gmmlib's library name keeps its own layer)."""
    found = diagnose(
        " intel-media-va-driver : Depends: libigdgmm12 (>= 22.3.0) but 22.1.2 is to be installed",
        KB,
    )
    assert _layer(found) != "install", found


def test_xes_failed_guc_reset_is_a_gpu_hang_and_a_wedged_device_alone_is_not() -> None:
    """xe's GuC failing to reset a hung engine names the hang; xe declaring a device wedged
    alone (it does so after a GuC firmware load failure too) stays the driver's layer."""
    hang = diagnose(
        "xe 0000:03:00.0: [drm] *ERROR* Tile0: GT0: GuC engine reset request failed on 0:0 "
        "because 0x00000000",
        KB,
    )
    assert [m.issue.id for m in hang.matches][:1] == ["xpu-gpu-hang"], hang
    wedged = diagnose(
        "xe 0000:03:00.0: [drm] *ERROR* CRITICAL: Xe has declared device 0000:03:00.0 as wedged.",
        KB,
    )
    assert wedged.matches == [] and _layer(wedged) == "driver", wedged
