# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
"""The tests compare procwatch's messages in English: the tool runs in the C
locale, where gettext ignores LANGUAGE too, whatever locale pytest was
started in (meson test sets the same; this holds for a run by hand).
test_i18n.py chooses its own locale for each run."""

import os

os.environ['LC_ALL'] = 'C'
