/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch-bench smoke: a small run of most measurements for the test
 * suite (meson test, suite bench), which checks that the harness works and
 * asserts no timing.
 */

#include "procwatch-bench-harness.h"

/* A small run of every measurement, for the test suite: checks that the
 * harness works, not how fast anything is. */
int
cmd_smoke (void)
{
  int status = 0;

  opt_rounds = 2;
  opt_max_delay_us = 1000;
  opt_peers = (char *) "epoll,monitor,fdsource,childwatch";
  status |= cmd_latency ();

  opt_sizes = (char *) "0,20";
  opt_iters = 20;
  opt_blocks = 2;
  status |= cmd_iter ();

  opt_sizes = (char *) "20";
  opt_rounds = 1;
  opt_peers = NULL;
  status |= cmd_burst ();

  opt_n = 20;
  status |= cmd_watchcost ();

  opt_iters = 5;
  status |= cmd_watchat ();

  opt_rounds = 1;
  status |= cmd_syscalls ();

  return status;
}
