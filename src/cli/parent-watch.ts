// A stop that never arrives. `kill -TERM` of `npm start` stops npm and its script shell, but npm 11 does not pass
// the signal on to the command the shell runs: the server is left behind, an orphan that still answers. A process
// started under such a parent watches it and, once it is gone (the process is given to another parent: init or a
// subreaper), sends itself SIGTERM, so that the one shutdown path there is runs: /ready answers 503, requests under
// way finish within the drain timeout, the state is saved. Polled: Node has no parent-death signal (prctl
// PR_SET_PDEATHSIG) and no portable event for it.

/** How often the parent is looked at (ms). */
export const PARENT_POLL_MS = 500;

export interface ParentWatchOptions {
  /** The parent's PID now (default process.ppid, read when called). */
  ppid?: () => number;
  /** What to do once the parent is gone (default: SIGTERM to this process). */
  onGone?: () => void;
  pollMs?: number;
}

/** Starts watching the parent; returns what stops the watch. The timer never keeps the process alive. */
export function watchParent(options: ParentWatchOptions = {}): () => void {
  const ppid = options.ppid ?? (() => process.ppid);
  const onGone = options.onGone ?? (() => process.kill(process.pid, 'SIGTERM'));
  const first = ppid();
  const timer = setInterval(() => {
    if (ppid() === first) return;
    clearInterval(timer);
    onGone();
  }, options.pollMs ?? PARENT_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
