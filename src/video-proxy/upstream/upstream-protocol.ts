import {
  BadGatewayException,
  BadRequestException,
  ConflictException,
  HttpException,
  ServiceUnavailableException,
} from '@nestjs/common';
import { TooManyRequestsException } from '../../common/errors/too-many-requests.exception';
import { isISO8601 } from 'class-validator';
import { isPlainObject } from '../../common/validation/plain-object';
import { MOVEMENT_AMPLITUDES, VIDEO_STYLES } from '../dto/create-video-task.dto';
import { VideoTaskReplyDto } from '../dto/video-task.dto';
import { VIDEO_TASK_STATES, VideoCreation, VideoTaskState } from '../entities/video-task.entity';

const isString = (value: unknown): boolean => typeof value === 'string';
const isShortString = (max: number) => (value: unknown) => typeof value === 'string' && value.length <= max;
const isBoolean = (value: unknown): boolean => typeof value === 'boolean';
const isInteger = (value: unknown): boolean => Number.isSafeInteger(value);
const isOneOf = (values: readonly string[]) => (value: unknown) => typeof value === 'string' && values.includes(value);
/** A date-time with its zone (the only kind of time that names one instant) that Date reads too (not every ISO 8601 form). */
const isInstant = (value: unknown): value is string =>
  typeof value === 'string' &&
  value.length <= 64 &&
  isISO8601(value, { strict: true }) &&
  /T.*(Z|[+-]\d\d(:?\d\d)?)$/i.test(value) &&
  Number.isFinite(Date.parse(value));

/**
 * The request fields the upstream echoes back, copied to the client as the
 * upstream returned them when they have the documented type (a mistyped echo
 * is dropped rather than passed on in breach of the schema).
 */
const ECHO_FIELDS: Record<keyof Omit<VideoTaskReplyDto, 'task_id' | 'state' | 'credits' | 'err_code'>, (value: unknown) => boolean> = {
  aspect_ratio: isShortString(32),
  bgm: isBoolean,
  created_at: isInstant,
  duration: isInteger,
  images: (value) => Array.isArray(value) && value.every(isString),
  model: isShortString(32),
  movement_amplitude: isOneOf(MOVEMENT_AMPLITUDES),
  off_peak: isBoolean,
  payload: isString,
  prompt: isString,
  resolution: isShortString(16),
  seed: isInteger,
  style: isOneOf(VIDEO_STYLES),
  watermark: isBoolean,
};

const MAX_ECHOED_MESSAGE = 500;

/** `credits` arrives as a number or a numeric string; anything else is a malformed reply. */
export function parseCredits(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^\s*\d+(\.0+)?\s*$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isSafeInteger(number) && number >= 0 ? number : undefined;
}

export function isVideoTaskState(value: unknown): value is VideoTaskState {
  return typeof value === 'string' && (VIDEO_TASK_STATES as readonly string[]).includes(value);
}

/** The longest task id this service stores (the `task_id` columns). */
const MAX_TASK_ID_LENGTH = 128;

/** A task id this service could have stored. */
function isTaskId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_TASK_ID_LENGTH;
}

/** The client's reply from the upstream's 2xx body; undefined when the body is not a task. */
export function parseTaskReply(body: unknown): VideoTaskReplyDto | undefined {
  if (!isPlainObject(body)) return undefined;
  const credits = parseCredits(body.credits);
  const taskId = body.task_id;
  if (!isTaskId(taskId) || !isVideoTaskState(body.state) || credits === undefined) {
    return undefined;
  }
  const reply: VideoTaskReplyDto = { task_id: taskId, state: body.state, credits };
  // A task the upstream creates already failed says why here, as its status would.
  const errCode = body.state === 'failed' ? errCodeOf(body.err_code) : null;
  if (errCode) reply.err_code = errCode;
  for (const [field, hasDocumentedType] of Object.entries(ECHO_FIELDS)) {
    if (hasDocumentedType(body[field])) {
      Object.assign(reply, { [field]: body[field] });
    }
  }
  // Times are ISO 8601 in UTC here (docs/api-rules.md §1), whatever zone the upstream wrote.
  if (reply.created_at !== undefined) reply.created_at = new Date(reply.created_at).toISOString();
  return reply;
}

export interface UpstreamTaskStatus {
  taskId: string;
  state: VideoTaskState;
  errCode: string | null;
  creations: VideoCreation[] | null;
}

function parseCreations(value: unknown): VideoCreation[] | null | undefined {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) return undefined;
  const creations = value.map((item: unknown) =>
    isPlainObject(item) && typeof item.id === 'string' && typeof item.url === 'string'
      ? { id: item.id, url: item.url, ...(typeof item.cover_url === 'string' && item.cover_url !== '' && { cover_url: item.cover_url }) }
      : undefined,
  );
  return creations.every((c) => c !== undefined) ? creations : undefined;
}

/** A task query reply or callback body (`{id, state, err_code, creations, ...}`); undefined when malformed. */
export function parseTaskStatus(body: unknown): UpstreamTaskStatus | undefined {
  if (!isPlainObject(body)) return undefined;
  const taskId = body.id ?? body.task_id;
  const creations = parseCreations(body.creations);
  if (!isTaskId(taskId) || !isVideoTaskState(body.state) || creations === undefined) {
    return undefined;
  }
  return { taskId, state: body.state, errCode: errCodeOf(body.err_code), creations };
}

/** An upstream `err_code` as the `err_code` column holds it; null when absent or empty. */
function errCodeOf(value: unknown): string | null {
  // eslint-disable-next-line no-control-regex -- control characters (NUL included) cannot be stored by PostgreSQL
  const clean = typeof value === 'string' ? value.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 128) : '';
  return clean || null;
}

function upstreamMessage(body: unknown, apiKey: string): string {
  const text = isPlainObject(body) ? (body.message ?? body.reason ?? body.code) : undefined;
  const message = typeof text === 'string' && text.trim() ? text.trim().slice(0, MAX_ECHOED_MESSAGE) : 'no reason given';
  return apiKey ? message.split(apiKey).join('[redacted]') : message;
}

function isCreditExhaustion(status: number, body: unknown): boolean {
  if (status === 402) return true;
  if (!isPlainObject(body)) return false;
  return [body.code, body.reason].some((value) => typeof value === 'string' && /credit/i.test(value));
}

/** Seconds from a Retry-After header (seconds or an HTTP date); 1 when absent or unreadable. */
export function retryAfterSeconds(header: unknown, now = Date.now()): number {
  if (typeof header !== 'string') return 1;
  if (/^\d+$/.test(header.trim())) return Math.max(1, Number(header.trim()));
  const date = Date.parse(header);
  return Number.isNaN(date) ? 1 : Math.max(1, Math.ceil((date - now) / 1000));
}

/**
 * The upstream refused the request itself (its 400 or 422): the same request
 * would be refused again, so an Idempotency-Key replays this answer.
 */
export class UpstreamRejectionException extends BadRequestException {
  constructor(upstreamMessage: string) {
    super(`the video model rejected the request: ${upstreamMessage}`);
  }
}

/**
 * The contract's mapping of upstream failures. The proxy's own credentials
 * are never echoed: a 401/403 from the upstream says nothing of them.
 */
export function upstreamFailure(
  status: number,
  body: unknown,
  headers: Record<string, unknown>,
  apiKey = '',
): HttpException {
  if (isCreditExhaustion(status, body)) {
    return new ServiceUnavailableException('the video service is out of credits; try again later');
  }
  if (status === 400 || status === 422) {
    return new UpstreamRejectionException(upstreamMessage(body, apiKey));
  }
  if (status === 401 || status === 403) {
    return new BadGatewayException('the video service refused this proxy’s credentials');
  }
  if (status === 429) {
    return new TooManyRequestsException('the video service is busy; retry later', retryAfterSeconds(headers['retry-after']));
  }
  return new BadGatewayException(`the video service failed (HTTP ${status})`);
}

/** A cancel's 2xx reply is `{}` (any JSON object will do); anything else is malformed. */
export function isCancelAccepted(body: unknown): boolean {
  return isPlainObject(body);
}

/**
 * The contract's mapping of a refused cancel (docs/api-rules.md §4.4): a 4xx
 * is the upstream declining (409 with its message), except a 401/403, which
 * is about this proxy's credentials (502, as for creates); anything else 502.
 */
export function cancelFailure(status: number, body: unknown, apiKey = ''): HttpException {
  if (status === 401 || status === 403) return upstreamFailure(status, body, {}, apiKey);
  if (status >= 400 && status < 500) {
    return new ConflictException(`the video service refused to cancel the task: ${upstreamMessage(body, apiKey)}`);
  }
  return new BadGatewayException(`the video service failed (HTTP ${status})`);
}
