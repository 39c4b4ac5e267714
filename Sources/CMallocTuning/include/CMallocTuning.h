#ifndef CMALLOCTUNING_H
#define CMALLOCTUNING_H

/// Sets glibc's malloc for a command that lives a few milliseconds (see tuning.c); does
/// nothing with another C library.
void nexus_malloc_tune_for_commands(void);

#endif
