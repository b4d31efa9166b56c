/** A response the client cannot frame exactly: the connection that carried it is not used again. */
export class ResponseFramingError extends Error {
  override readonly name = 'ResponseFramingError';
}
