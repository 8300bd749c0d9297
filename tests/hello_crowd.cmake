# The hello_crowd sample (samples/hello_crowd/main.c): 100 characters over a few
# frames; it exits non-zero on any error and on any validation message.
if(SINEW_BUILD_SAMPLES)
  add_test(NAME sample_hello_crowd COMMAND $<TARGET_FILE:sinew_hello_crowd>)
  set_tests_properties(sample_hello_crowd PROPERTIES LABELS gpu TIMEOUT 300
    ENVIRONMENT "SINEW_VALIDATION=1;${SINEW_TEST_SANITIZER_ENV}")
endif()
