# Tests of the Python package (python/, docs/python.md), when it is built:
# python_api (NumPy vs the C reference, errors, 100 GPU poses), python_readme
# (README's ```python example), python_bake (sinew.bake in one process:
# identical bytes for any shard size, resume) and python_bake_dask (a
# LocalCluster of 2 worker processes: sharded == single-process bytes, a worker
# killed mid-bake).
if(NOT TARGET sinew_python)
  return()
endif()
set(_py_env "PYTHONPATH=${PROJECT_BINARY_DIR}/python;SINEW_SOURCE_DIR=${PROJECT_SOURCE_DIR};SINEW_VALIDATION=1")
foreach(_t api bake bake_dask)
  add_test(NAME python_${_t} COMMAND ${SINEW_PYTHON_EXECUTABLE} ${PROJECT_SOURCE_DIR}/python/tests/test_${_t}.py
           WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
  set_tests_properties(python_${_t} PROPERTIES TIMEOUT 300 LABELS "python;gpu" ENVIRONMENT "${_py_env}")
endforeach()
set_tests_properties(python_bake_dask PROPERTIES TIMEOUT 240)
# The README's first ```python block, run as it is (from the build folder).
file(READ ${PROJECT_SOURCE_DIR}/README.md _py_readme)
string(FIND "${_py_readme}" "```python\n" _py_begin)
if(_py_begin GREATER -1)
  math(EXPR _py_begin "${_py_begin} + 10")
  string(SUBSTRING "${_py_readme}" ${_py_begin} -1 _py_rest)
  string(FIND "${_py_rest}" "```" _py_end)
  string(SUBSTRING "${_py_rest}" 0 ${_py_end} _py_code)
  file(WRITE ${PROJECT_BINARY_DIR}/readme_example/example.py "${_py_code}")
  add_test(NAME python_readme COMMAND ${SINEW_PYTHON_EXECUTABLE} ${PROJECT_BINARY_DIR}/readme_example/example.py
           WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
  set_tests_properties(python_readme PROPERTIES TIMEOUT 300 LABELS "python;gpu" ENVIRONMENT "${_py_env}")
else()
  message(FATAL_ERROR "README.md has no ```python example (tests/python.cmake)")
endif()
