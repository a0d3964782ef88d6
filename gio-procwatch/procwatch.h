/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#pragma once

#include <gio/gio.h>

#define PROCWATCH_INSIDE
# include "procwatch-version.h"
# include "procwatch-types.h"
# include "procwatch-enums.h"
# include "procwatch-cgroup.h"
# include "procwatch-process.h"
# include "procwatch-process-monitor.h"
#undef PROCWATCH_INSIDE
