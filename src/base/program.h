/*
 * program.h: finding a program to run (program.c), for the commands a
 * run times and for gnuplot.  Never installed.
 */
#ifndef SB_PROGRAM_H
#define SB_PROGRAM_H

/* The file the program name starts, as execvp would find it: name itself
 * when it holds a '/', else the first executable regular file of that
 * name in the directories of $PATH (an empty entry is the current
 * directory; no PATH or an empty one: default_path).  A new string the
 * caller frees, or NULL when there is none, or no memory (errno ENOMEM
 * then, ENOENT otherwise). */
char *sb__find_program(const char *name, const char *default_path);

#endif
