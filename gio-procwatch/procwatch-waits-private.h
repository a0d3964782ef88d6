/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * The pending waits on one thing (a process, a cgroup): GTasks that all
 * complete with that thing's object when what they wait for is seen, fail
 * when their cancellable is cancelled, and are settled from an idle when
 * watching stops inside a call of the application.
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct
{
  /* GTask, oldest first: a process has no waits or a few, so a list head
   * is all it carries. */
  GList *tasks;
} ProcwatchWaits;

void     procwatch_waits_add          (ProcwatchWaits *waits,
                                       GTask          *task,
                                       gpointer        holder,
                                       GDestroyNotify  release_holder);
GTask   *procwatch_waits_pop          (ProcwatchWaits *waits);
void     procwatch_waits_settle_later (ProcwatchWaits *waits,
                                       GObject        *result,
                                       const char     *message);

G_END_DECLS
