/* SPDX-License-Identifier: MIT */
/* The Docker Engine API filter (plugins/docker): not built yet. */
#include "broker.h"

#include <errno.h>

int docker_serve(const struct broker *b, int client)
{
	blog(b, "refused: the docker filter is not built");
	(void)client;
	return -ENOSYS;
}
