export declare const PINNED_NODE_MAJOR: number;
export declare function nodeVersionProblem(version?: string): string | undefined;
