import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import { Request, Response } from 'express';
import { requestIdOf } from '../http/request-id';
import { ErrorResponseDto } from './error-response.dto';
import { TooManyRequestsException } from './too-many-requests.exception';

/**
 * Turns anything thrown anywhere (guard, pipe, middleware, unknown route,
 * service, crash) into the contract's error body. Unexpected errors become a
 * bare 500: their details go to the log, never to the client.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpErrorFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const requestId = requestIdOf(request, response);
    const { status, message } = this.describe(exception);

    if (status >= 500) {
      this.logger.error({ err: exception, requestId }, `${request.method} ${request.path} failed`);
    }
    if (response.headersSent) {
      return;
    }
    if (status === Number(HttpStatus.UNAUTHORIZED)) {
      response.setHeader('WWW-Authenticate', 'Bearer');
    }
    if (exception instanceof TooManyRequestsException) {
      response.setHeader('Retry-After', String(exception.retryAfterSeconds));
    }
    const body: ErrorResponseDto = {
      statusCode: status,
      error: STATUS_CODES[status] ?? 'Error',
      message,
      requestId,
    };
    response.status(status).json(body);
  }

  private describe(exception: unknown): { status: number; message: string } {
    if (!(exception instanceof HttpException)) {
      return { status: HttpStatus.INTERNAL_SERVER_ERROR, message: 'internal server error' };
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
