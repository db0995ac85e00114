#ifndef FEINT_VERSION_H
#define FEINT_VERSION_H
#define FEINT_VERSION "0.1.0"
#endif
