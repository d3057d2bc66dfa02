// The Catch2 runner, shared by the native and the WASM build.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
