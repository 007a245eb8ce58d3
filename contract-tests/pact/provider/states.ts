// What the provider-state handlers of both providers share: their types, a memo for states that several
// interactions may share, and a wrapper that keeps every handler failure for the test to report.
/** The values a state hands to the interactions (`fromProviderState`). */
export type JsonMap = Record<string, string | number | boolean>;
export type StateHandler = (params?: unknown) => Promise<JsonMap>;
export type StateHandlerMap = Record<string, StateHandler>;
/** What the verifier takes (contract-tests/pact/quiet-verifier.ts). */
export type StateHandlers = StateHandlerMap;

/**
 * `once(state, build)`: a handler that builds its state at the first setup for given params and hands
 * the same values to every later interaction given it. Only for states no interaction changes: the
 * interactions given them prepare, read or fail, and never submit. A failed build is tried again.
 */
export function sharedStates(): (state: string, build: StateHandler) => StateHandler {
  const built = new Map<string, Promise<JsonMap>>();
  return (state, build) => (params) => {
    const id = `${state} ${JSON.stringify(params ?? {})}`;
    let values = built.get(id);
    if (!values) {
      values = build(params);
      values.catch(() => built.delete(id));
      built.set(id, values);
    }
    return values;
  };
}

/**
 * The handlers, and every failure of theirs. pact-js only logs a failing state handler and verifies the
 * interaction anyway (with the pact's example values), so a test must check `failures` itself to report
 * the cause rather than its echo.
 */
export function recordingFailures(handlers: StateHandlerMap): { handlers: StateHandlers; failures: string[] } {
  const failures: string[] = [];
  const wrapped = Object.fromEntries(
    Object.entries(handlers).map(([state, handler]) => [
      state,
      async (params?: unknown) => {
        try {
          return await handler(params);
        } catch (err) {
          failures.push(`${state} ${JSON.stringify(params ?? {})}: ${(err as Error).stack ?? String(err)}`);
          throw err;
        }
      },
    ]),
  );
  return { handlers: wrapped, failures };
}
