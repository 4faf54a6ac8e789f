/* text.h: text for a terminal (text.c). */
#ifndef SB_TEXT_H
#define SB_TEXT_H

#include <stddef.h>

/* sb__char_len: the length of the character at s and whether it is a
 * control (C0, DEL, C1) or not UTF-8; sb__clean_text: each such character
 * replaced by '?', in place.  Every string that came from outside (a
 * loaded file, a file name, the command line) goes through it before it
 * is printed: an ESC sequence in a JSON must not reach the user's
 * terminal. */
size_t sb__char_len(const char *s, int *control);
void sb__clean_text(char *s);
/* A new copy of s, cleaned so (a name that ends up in one-line tables);
 * NULL when out of memory. */
char *sb__clean_copy(const char *s);
/* s cut to fit buf's size bytes and cleaned so, for a message that shows
 * a value it refuses. */
void sb__clean_into(char *buf, size_t size, const char *s);

#endif
