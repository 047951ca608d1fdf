/** The few types the OpenAPI builder shares. Documents are plain JSON; the checkers are external tools. */
export type JsonObject = { [key: string]: unknown };

export type HttpVerb = 'get' | 'post' | 'put' | 'patch' | 'delete';
