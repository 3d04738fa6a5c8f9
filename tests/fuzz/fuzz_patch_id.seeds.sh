#!/bin/bash
# fuzz_patch_id.seeds.sh DIR - seeds for fuzz_patch_id: the same patches
# as fuzz_diff (real patch mails from ../shared and hand-written ones).
exec bash "$(dirname "$0")/fuzz_diff.seeds.sh" "$@"
