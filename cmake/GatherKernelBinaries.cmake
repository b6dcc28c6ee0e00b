# Writes a C++ source fragment holding what the binary knows of its own kernels' code: the text of
# every family file (SOURCES) and the cubin of every real architecture that nvcc kept beside each
# kernel object (see keep-kernel-outputs.sh), each with its file name. tool/model/kernel_source.cpp
# includes it after declaring EmbeddedSource and EmbeddedCubin.
# A second file (SASS_OUTPUT) holds nvdisasm's listing of each cubin where NVDISASM names one.
# OBJECTS and SOURCES arrive joined with '|' so that one -D argument carries each list.
string(REPLACE "|" ";" objects "${OBJECTS}")
string(REPLACE "|" ";" sources "${SOURCES}")
set(arrays "")
set(cubin_table "")
set(index 0)
foreach(object IN LISTS objects)
  file(GLOB cubins "${object}.keep/*.cubin")
  list(SORT cubins)
  foreach(cubin IN LISTS cubins)
    execute_process(COMMAND "${BIN2C}" --name wl_cubin_${index} "${cubin}"
                    OUTPUT_VARIABLE array RESULT_VARIABLE status)
    if(NOT status EQUAL 0)
      message(FATAL_ERROR "bin2c could not read ${cubin}")
    endif()
    get_filename_component(name "${cubin}" NAME)
    string(APPEND arrays "${array}")
    string(APPEND cubin_table "  {\"${name}\", wl_cubin_${index}, sizeof(wl_cubin_${index})},\n")
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
file(WRITE "${OUTPUT}.tmp"
     "${arrays}\nconst EmbeddedCubin kEmbeddedCubins[] = {\n${cubin_table}};\n"
     "const EmbeddedSource kEmbeddedSources[] = {\n${source_table}};\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
# The last entry ends the list (an array cannot be empty where there is no nvdisasm).
file(WRITE "${SASS_OUTPUT}.tmp" "const EmbeddedSass kEmbeddedSass[] = {\n${sass_table}  {nullptr, nullptr}};\n")
file(COPY_FILE "${SASS_OUTPUT}.tmp" "${SASS_OUTPUT}" ONLY_IF_DIFFERENT)
