/** The contract's error body (docs/api-rules.md §1), checked field by field. */
export function expectErrorBody(body: Record<string, unknown>, status: number, error: string, requestId?: string): void {
  expect(body).toEqual({
    statusCode: status,
    error,
    message: expect.any(String),
    requestId: requestId ?? expect.any(String),
  });
}
