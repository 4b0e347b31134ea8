#ifndef PUSHLINE_CRDKAFKA_SHIM_H
#define PUSHLINE_CRDKAFKA_SHIM_H
#include <librdkafka/rdkafka.h>
// The in-process mock cluster used by tests and `pushline-dev dev-kafka`.
#include <librdkafka/rdkafka_mock.h>
#endif
