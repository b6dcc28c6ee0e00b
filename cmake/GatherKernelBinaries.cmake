# Writes a C++ source fragment holding what the binary knows of its own kernels' code: the text of
# every family file (SOURCES) and the cubin of every real architecture that nvcc kept beside each
# kernel object (see keep-kernel-outputs.sh), each with its file name. tool/model/kernel_source.cpp
# includes it twice (see the end of this file).
# A second file (SASS_OUTPUT) holds nvdisasm's listing of each cubin where NVDISASM names one.
# OBJECTS and SOURCES arrive joined with '|' so that one -D argument carries each list.
string(REPLACE "|" ";" objects "${OBJECTS}")
string(REPLACE "|" ";" sources "${SOURCES}")
# The cubins' bytes are placed by the assembler (.incbin), not written out as C arrays: a 90 MB
# array of numbers took the compiler 40 s and more. Each cubin's hash stands beside it, so the
# fragment changes (and kernel_source.cpp is compiled again) whenever a cubin's bytes do.
set(data "")
set(cubin_table "")
set(index 0)
foreach(object IN LISTS objects)
  file(GLOB cubins "${object}.keep/*.cubin")
  list(SORT cubins)
  foreach(cubin IN LISTS cubins)
    file(SHA256 "${cubin}" hash)
    get_filename_component(name "${cubin}" NAME)
    set(symbol "wl_cubin_${index}")
    string(APPEND data "// ${name} ${hash}\n"
           "asm(\".pushsection .rodata.wl_cubins,\\\"a\\\"\\n.balign 16\\n"
           ".globl ${symbol}\\n.hidden ${symbol}\\n${symbol}:\\n"
           ".incbin \\\"${cubin}\\\"\\n"
           ".globl ${symbol}_end\\n.hidden ${symbol}_end\\n${symbol}_end:\\n.popsection\");\n"
           "extern \"C\" const unsigned char ${symbol}[], ${symbol}_end[];\n")
    string(APPEND cubin_table "  {\"${name}\", ${symbol}, std::size_t(${symbol}_end - ${symbol})},\n")
    math(EXPR index "${index} + 1")
  endforeach()
endforeach()
set(source_table "")
# nvdisasm's listing of each cubin, where the toolkit has nvdisasm (tool/model/sass_text.cpp reads it).
set(sass_table "")
if(NVDISASM)
  foreach(object IN LISTS objects)
    file(GLOB cubins "${object}.keep/*.cubin")
    list(SORT cubins)
    foreach(cubin IN LISTS cubins)
      execute_process(COMMAND "${NVDISASM}" -c -g "${cubin}" OUTPUT_VARIABLE listing
                      RESULT_VARIABLE status)
      if(NOT status EQUAL 0)
        message(FATAL_ERROR "nvdisasm could not read ${cubin}")
      endif()
      get_filename_component(name "${cubin}" NAME)
      string(APPEND sass_table "  {\"${name}\", R\"wl_sass(${listing})wl_sass\"},\n")
    endforeach()
  endforeach()
endif()
foreach(source IN LISTS sources)
  file(READ "${source}" text)
  get_filename_component(name "${source}" NAME)
  string(APPEND source_table "  {\"${name}\", R\"wl_source(${text})wl_source\"},\n")
endforeach()
# Included twice by kernel_source.cpp: at file scope with WL_EMBEDDED_DATA for the bytes and
# their symbols, then inside its namespace for the tables. The cubins' list ends with an empty
# entry, since a build without the CUDA toolkit has none.
file(WRITE "${OUTPUT}.tmp"
     "#ifdef WL_EMBEDDED_DATA\n${data}#else\n"
     "const EmbeddedCubin kEmbeddedCubins[] = {\n${cubin_table}  {nullptr, nullptr, 0}};\n"
     "const EmbeddedSource kEmbeddedSources[] = {\n${source_table}};\n#endif\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
# The last entry ends the list (an array cannot be empty where there is no nvdisasm).
file(WRITE "${SASS_OUTPUT}.tmp" "const EmbeddedSass kEmbeddedSass[] = {\n${sass_table}  {nullptr, nullptr}};\n")
file(COPY_FILE "${SASS_OUTPUT}.tmp" "${SASS_OUTPUT}" ONLY_IF_DIFFERENT)
