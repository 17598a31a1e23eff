/*
 * Process start-up below the GASNet API: who am I (bootstrap), how am I
 * configured (the environment table), how loud am I (log level).  The core
 * API's gasnet_init is this plus its own checks; tests and the demo that
 * work on the ptl layer directly call it too.
 */
#ifndef GP_CONDUIT_RUNTIME_H
#define GP_CONDUIT_RUNTIME_H

/*
 * Bootstraps and loads the configuration.  A bad environment value is a
 * fatal error naming the variable, the value and the accepted form (the job
 * ends through the launcher).  With GASNET_VERBOSEENV set, node 0 prints
 * every variable with its value and source.  Returns GASNET_OK or
 * GASNET_ERR_RESOURCE (bootstrap failed; the reason was printed).
 */
int gp_runtime_init(void);

#endif
