#include <cstdio>
#include "parley/version.h"
int main() { std::puts("parley " PARLEY_VERSION); return 0; }
