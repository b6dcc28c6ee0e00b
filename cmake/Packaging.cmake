# WarpLens installed as a program (cmake --install), and its Debian package (cpack -G DEB).
#
# The layout follows GNUInstallDirs: bin/warplens; share/warplens, the assets, which the binary
# finds relative to itself (tool/io/assets.cpp); the desktop entry, hicolor icons and the man
# page; the copyright and changelog. With WARPLENS_BUNDLE_CUDA_LIBRARIES, CUPTI and NVRTC go to
# lib/warplens/cuda (a program's private folder, one below lib/warplens so that CPack adds no
# ldconfig call for it), unmodified, as the CUDA EULA's Attachment A allows, and the installed
# binary looks there first: it then needs the NVIDIA driver alone, not the toolkit (the CUDA
# runtime is linked statically). Not shipped: cuBLAS (the matmul/cublas peer, hundreds of MB,
# loaded when present) and nvdisasm (not redistributable; a kernel file's per-line SASS text needs
# it); `warplens doctor` says what is missing.

option(WARPLENS_BUNDLE_CUDA_LIBRARIES
       "Install CUPTI and NVRTC beside warplens, so it runs with the NVIDIA driver alone"
       ${WARPLENS_HAS_CUDA})

set(wl_private_libdir lib/warplens/cuda)

install(DIRECTORY assets/ DESTINATION ${CMAKE_INSTALL_DATADIR}/warplens
        PATTERN screenshots EXCLUDE) # the manual's pictures
# The manual (README.md and its chapters, to which every command's --help points), and its kernel
# files, to copy and edit.
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs FILES_MATCHING PATTERN "*.md")
install(DIRECTORY examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
install(FILES packaging/warplens.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
foreach(size 16 32 48 64 128 256)
  install(FILES packaging/warplens-${size}.png
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps
          RENAME warplens.png)
endforeach()
install(FILES packaging/warplens.svg DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)

# Debian keeps man pages and changelogs compressed, and reproducibly: gzip -n stores no name or
# time.
# Whoever publishes the package puts their address here (Debian wants a real one).
set(WARPLENS_PACKAGE_MAINTAINER "The WarpLens authors <warplens@localhost>"
    CACHE STRING "The Maintainer field of the Debian package and its changelog")
configure_file(packaging/changelog.in changelog @ONLY) # with the maintainer's address
foreach(page ${PROJECT_SOURCE_DIR}/packaging/warplens.1 ${PROJECT_BINARY_DIR}/changelog)
  get_filename_component(name ${page} NAME)
  add_custom_command(OUTPUT ${name}.gz COMMAND gzip -9nc ${page} > ${name}.gz DEPENDS ${page})
endforeach()
add_custom_target(wl_packaging_pages ALL DEPENDS warplens.1.gz changelog.gz)
# The quick start builds the warplens target alone; an install after it needs these too.
add_dependencies(warplens wl_packaging_pages)
install(FILES ${PROJECT_BINARY_DIR}/warplens.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES packaging/copyright ${PROJECT_BINARY_DIR}/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

if(WARPLENS_BUNDLE_CUDA_LIBRARIES AND NOT WARPLENS_HAS_CUDA)
  message(FATAL_ERROR "WARPLENS_BUNDLE_CUDA_LIBRARIES: this build has no CUDA toolkit to take "
                      "CUPTI and NVRTC from; turn the option off")
endif()
if(WARPLENS_BUNDLE_CUDA_LIBRARIES)
  # Each by the name the loader asks for (its SONAME; NVRTC opens its builtins by this exact name).
  get_target_property(wl_cupti_file CUDA::cupti IMPORTED_LOCATION)
  get_filename_component(wl_cupti_dir ${wl_cupti_file} DIRECTORY)
  get_filename_component(wl_nvrtc_dir ${wl_nvrtc} DIRECTORY)
  set(wl_major ${CUDAToolkit_VERSION_MAJOR})
  foreach(entry "${wl_cupti_dir}/libcupti.so.${wl_major}" "${wl_nvrtc_dir}/libnvrtc.so.${wl_major}"
                "${wl_nvrtc_dir}/libnvrtc-builtins.so.${wl_major}.${CUDAToolkit_VERSION_MINOR}")
    if(NOT EXISTS ${entry})
      message(FATAL_ERROR "WARPLENS_BUNDLE_CUDA_LIBRARIES: ${entry} is missing; turn the option "
                          "off to install without the CUDA libraries")
    endif()
    file(REAL_PATH ${entry} wl_real)
    get_filename_component(wl_name ${entry} NAME)
    install(FILES ${wl_real} DESTINATION ${wl_private_libdir} RENAME ${wl_name})
    # The build tree holds the same folder, of links to the toolkit's files (see below).
    file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/${wl_private_libdir})
    file(CREATE_LINK ${wl_real} ${PROJECT_BINARY_DIR}/${wl_private_libdir}/${wl_name} SYMBOLIC)
  endforeach()
  # The licence those libraries come under, from the toolkit (the runfile's EULA.txt, or the one
  # NVIDIA's wheels carry).
  file(GLOB wl_eula ${CUDAToolkit_LIBRARY_ROOT}/EULA.txt
       ${CUDAToolkit_LIBRARY_ROOT}/dist-info/nvidia_cuda_cupti-*/licenses/License.txt)
  if(NOT wl_eula)
    message(FATAL_ERROR "WARPLENS_BUNDLE_CUDA_LIBRARIES: no CUDA EULA under "
                        "${CUDAToolkit_LIBRARY_ROOT} to install with the CUDA libraries")
  endif()
  list(GET wl_eula 0 wl_eula)
  install(FILES ${wl_eula} DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME NVIDIA-CUDA-EULA.txt)
  # A run path, not a RUNPATH: NVRTC opens its builtins with dlopen, which searches the
  # executable's DT_RPATH but not its DT_RUNPATH. The binary is built with it, the build tree
  # mirroring the folder: editing a build's run path in place at install pads it with ':' to the
  # installed one's length, and an empty entry makes the loader search the current folder (a
  # libstb.so.0 there would run as WarpLens).
  set_target_properties(warplens PROPERTIES INSTALL_RPATH "$ORIGIN/../${wl_private_libdir}"
                                            BUILD_WITH_INSTALL_RPATH ON)
  target_link_options(warplens PRIVATE "LINKER:--disable-new-dtags")
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME warplens)
set(CPACK_PACKAGE_VENDOR "The WarpLens authors")
set(CPACK_PACKAGE_CONTACT ${WARPLENS_PACKAGE_MAINTAINER})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "see what a GPU does with a kernel launch")
# Lines of at most 80 characters, as the control file's extended description wants them.
string(CONCAT CPACK_PACKAGE_DESCRIPTION
    "WarpLens shows the occupancy a block shape gets and the resource that limits\n"
    "it, how each warp's global accesses turn into 32-byte sectors, how its\n"
    "shared-memory accesses fall on the 32 banks, and how long a CUDA kernel takes,\n"
    "each measured figure beside its model's. It opens its bundled kernels or a\n"
    "person's own kernel file (compiled by NVRTC, measured again at each save).\n"
    "Measuring needs an NVIDIA GPU and its driver (R580 or later); without them it\n"
    "runs in model mode.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The driver is loaded at run time (the static CUDA runtime opens libcuda.so.1), so shlibdeps
# cannot see it; without it the program still runs, in model mode.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libcuda1 | nvidia-driver-libs")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "nvidia-cuda-toolkit")
set(CPACK_STRIP_FILES ON) # the program only: install(TARGETS); NVIDIA's files stay as shipped
include(CPack)
