# CPack: one Debian package with everything `cmake --install` installs (CLI, shared and static libraries,
# header, GLSL includes, pkg-config and CMake files, docs). Build it with
#   cmake -S . -B build-deb -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr -DBUILD_TESTING=OFF &&
#   cmake --build build-deb -j2 &&
#   (cd build-deb && cpack -G DEB)
set(CPACK_PACKAGE_NAME vkocc)
set(CPACK_PACKAGE_VENDOR "vkocc")
set(CPACK_PACKAGE_CONTACT "vkocc maintainers <vkocc@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "GPU occupancy through Vulkan microbenchmarks (CLI and library)")
set(CPACK_PACKAGE_DESCRIPTION "vkocc measures occupancy (resident workgroups), the SM count and per-SM limits of any
Vulkan device, fingerprints it and picks tuned kernel parameters per architecture. This package holds the
vkocc command, libvkocc (shared and static, pkg-config vkocc, CMake package vkocc::vkocc), libvkocc-plot
(cairo plots), the header vkocc.h, GLSL includes and the documentation.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_README ${PROJECT_SOURCE_DIR}/README.md)
set(CPACK_GENERATOR DEB)
set(CPACK_STRIP_FILES ON) # symbol tables out of the binaries and .so (the dynamic symbols stay); debug info belongs in a -dbg package
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # vkocc_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# Depends: the shared libraries the binaries need, read by dpkg-shlibdeps (jansson, spirv-cross, cairo,
# glfw, libstdc++, libc), plus the Vulkan loader, which vkocc opens at run time (dlopen: invisible to it).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libvulkan1")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "mesa-vulkan-drivers | vulkan-icd, pkg-config")
# linking libvkocc.a (not libvkocc.so) needs the compiler's static libraries and these headers
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libjansson-dev, libspirv-cross-c-shared-dev, libshaderc-dev, glslang-dev, spirv-tools, glslc")
include(CPack)
