/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Whole-buffer reads and writes on the pipes and sockets over which the
 * tests' helpers and the benchmarks talk to the processes they start: one
 * copy for both, built as a static library of its own (see the top
 * meson.build) since bench/ is entered before tests/.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

void     io_write_all (int         fd,
                       const void *data,
                       gsize       size);
gboolean io_read_all  (int    fd,
                       void  *data,
                       gsize  size);

G_END_DECLS
