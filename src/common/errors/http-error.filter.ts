import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger, NotFoundException } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { IncomingMessage, ServerResponse, STATUS_CODES } from 'node:http';
import { isDatabaseUnavailable } from '../../database/database-unavailable';
import { AllowedMethods } from '../http/allowed-methods';
import { routeTemplateOf } from '../http/http-request';
import { requestIdOf } from '../http/request-id';
import { ErrorResponseDto } from './error-response.dto';
import { TooManyRequestsException } from './too-many-requests.exception';

/** How long a client is asked to wait when the database is unavailable. */
const DATABASE_RETRY_AFTER_S = 1;

/** When a client may try again: a rate limit's window, or shortly for a database that cannot be reached. */
function retryAfterOf(exception: unknown): number | undefined {
  if (exception instanceof TooManyRequestsException) return exception.retryAfterSeconds;
  return !(exception instanceof HttpException) && isDatabaseUnavailable(exception) ? DATABASE_RETRY_AFTER_S : undefined;
}

/** The contract's error body. */
export function errorBody(status: number, message: string, requestId: string): ErrorResponseDto {
  return { statusCode: status, error: STATUS_CODES[status] ?? 'Error', message, requestId };
}

/** The error body serialised with its headers, for replies written to Node's response or socket directly. */
export function rawErrorReply(status: number, message: string, requestId: string): { headers: Record<string, string>; body: string } {
  const body = JSON.stringify(errorBody(status, message, requestId));
  return {
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)), 'X-Request-Id': requestId },
    body,
  };
}

/**
 * Turns anything thrown anywhere (guard, pipe, middleware, unknown route,
 * service, crash) into the contract's error body; an unknown method on a
 * known path is 405.
 * Unexpected errors become a bare 500: their details go to the log, never to
 * the client. A database that cannot be reached is a 503 with Retry-After: the
 * request may succeed when retried.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpErrorFilter');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly allowedMethods: AllowedMethods,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<IncomingMessage>();
    const response = http.getResponse<ServerResponse>();
    const requestId = requestIdOf(request, response);
    const { status, message } = this.methodNotAllowed(exception, request, response) ?? this.describe(exception);
    const retryAfterSeconds = retryAfterOf(exception);

    if (status >= 500) {
      this.logger.error({ err: exception, requestId }, `${request.method} ${(request.url ?? '').split('?')[0]} failed`);
    }
    if (response.headersSent) {
      return;
    }
    if (status === Number(HttpStatus.UNAUTHORIZED)) {
      response.setHeader('WWW-Authenticate', 'Bearer');
    }
    if (retryAfterSeconds !== undefined) {
      response.setHeader('Retry-After', String(retryAfterSeconds));
    }
    this.adapterHost.httpAdapter.reply(response, errorBody(status, message, requestId), status);
  }

  /** A path no route serves with the request's method, but some route serves with others: 405, and `Allow` names them. */
  private methodNotAllowed(exception: unknown, request: IncomingMessage, response: ServerResponse): { status: number; message: string } | undefined {
    if (!(exception instanceof NotFoundException) || routeTemplateOf(request) !== undefined) return undefined;
    const path = (request.url ?? '').split('?')[0];
    const allowed = this.allowedMethods.of(path);
    if (allowed.length === 0) return undefined;
    response.setHeader('Allow', allowed.join(', '));
    return { status: HttpStatus.METHOD_NOT_ALLOWED, message: `${request.method} is not allowed on ${path} (allowed: ${allowed.join(', ')})` };
  }

  private describe(exception: unknown): { status: number; message: string } {
    if (!(exception instanceof HttpException)) {
      return isDatabaseUnavailable(exception)
        ? { status: HttpStatus.SERVICE_UNAVAILABLE, message: 'the database is unavailable; retry shortly' }
        : { status: HttpStatus.INTERNAL_SERVER_ERROR, message: 'internal server error' };
    }
    const status = exception.getStatus();
    const payload = exception.getResponse();
    if (status >= 500 && status !== Number(HttpStatus.SERVICE_UNAVAILABLE)) {
      return { status, message: typeof payload === 'string' ? payload : exception.message };
    }
    if (typeof payload === 'string') {
      return { status, message: payload };
    }
    const inner = (payload as { message?: unknown }).message;
    if (Array.isArray(inner)) {
      return { status, message: inner.map(String).join('; ') };
    }
    return { status, message: typeof inner === 'string' ? inner : exception.message };
  }
}
