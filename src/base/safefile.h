/*
 * safefile.h: a file replaced whole, never written through: a new file
 * beside its name, renamed over it once complete.  One routine for every
 * file statbench writes by name (-o, --save, the figures' data, script
 * and picture), compiled into the library and into the command, as
 * text.c is.
 */
#ifndef SB_SAFEFILE_H
#define SB_SAFEFILE_H

#include <sys/types.h>

/* A new file PATH.XXXXXX beside path, for what will be renamed to path
 * when complete.  O_CREAT|O_EXCL|O_NOFOLLOW: never an existing file,
 * never through a symbolic link (another user's, planted at a name we
 * were expected to use).  mode (mode_t)-1: 0666 less the umask, as any
 * new file (mkstemp's 0600 would need the umask, which a library cannot
 * read without changing it for every thread); else made 0600 and then
 * given those permission bits (the file replaced keeps them: a private
 * file stays private, and is never readable by others on the way).  Returns
 * the descriptor and the new name in *tmp (the caller's to free), or -1
 * with errno set and *tmp NULL. */
int sb__replace_begin(const char *path, mode_t mode, char **tmp);
/* Rename *tmp over path: whatever is at path, a symbolic link included,
 * is replaced, never written through.  0, *tmp freed and NULL; -1 with
 * errno set, *tmp kept (for sb__replace_abort). */
int sb__replace_commit(char **tmp, const char *path);
/* Remove and free *tmp (NULL: nothing); errno is kept. */
void sb__replace_abort(char **tmp);

#endif
