"""The files of a run on disk: which files a run looks at (`files.discover`: git's list or
a walk with `.gitignore` through pathspec, excludes), reading them when needed instead of
all at once (`sources`), and writing all changed files or none (`files.write_all`: every
target checked again right before its rename, `renames` for the atomic swap where the
system has one, `file_metadata` for what a file keeps besides its bytes), with the
`--json` report made ready before anything is written (`report_file`)."""
