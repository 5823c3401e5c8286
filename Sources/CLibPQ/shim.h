#ifndef APNSD_CLIBPQ_SHIM_H
#define APNSD_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
