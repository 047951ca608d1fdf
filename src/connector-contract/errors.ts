export type ConnectorErrorCode =
  | 'connector_config_invalid'
  | 'connector_input_invalid'
  | 'connector_unreachable'
  | 'connector_statement_failed'
  | 'connector_result_invalid'
  | 'connector_unknown_type';

/**
 * An error raised by a connector. `retryable` is data, not guessed from the message: a dropped connection is
 * retryable, a missing column is not. Messages never carry parameter values or credentials.
 */
export class ConnectorError extends Error {
  readonly code: ConnectorErrorCode;
  readonly retryable: boolean;
  readonly connector: string;

  constructor(
    code: ConnectorErrorCode,
    message: string,
    options: { connector: string; retryable: boolean; cause?: unknown },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ConnectorError';
    this.code = code;
    this.retryable = options.retryable;
    this.connector = options.connector;
  }
}
