/*
 * hostbus.h - the driver's bus (nicdrv_bus.h) on a simulated node: MMIO through the node's PCIe
 * model, from inside a host coroutine. A full request queue or an outstanding read yields to the
 * simulator until the transaction can proceed, so the calls cost simulated time exactly as the
 * PCIe model says. Only callable from a coroutine of the cluster's scheduler.
 */
#ifndef HOSTBUS_H
#define HOSTBUS_H

#include "nicdrv_bus.h"
#include "node.h"

void hostbus_init(struct nicdrv_bus *bus, node_t *node);

#endif /* HOSTBUS_H */
