import { HttpService } from '@nestjs/axios';
import { BadGatewayException, GatewayTimeoutException, HttpException, Inject, Injectable, Logger } from '@nestjs/common';
import { AxiosError, AxiosResponse } from 'axios';
import { VideoTaskReplyDto } from '../dto/video-task.dto';
import { videoConfig, VideoConfig } from '../video.config';
import { upstreamRequestOptions } from './upstream-http';
import { cancelFailure, isCancelAccepted, parseTaskReply, parseTaskStatus, UpstreamTaskStatus, upstreamFailure } from './upstream-protocol';
import { UpstreamCalls } from './upstream-calls';
import { UpstreamTarget } from './upstream-target';

/** The one client of the upstream video API's wire protocol. */
@Injectable()
export class VideoUpstreamClient {
  private readonly logger = new Logger(VideoUpstreamClient.name);

  constructor(
    private readonly http: HttpService,
    private readonly target: UpstreamTarget,
    @Inject(videoConfig.KEY) private readonly config: VideoConfig,
    private readonly calls: UpstreamCalls,
  ) {}

  /** Creates a reference-to-video task; any failure is thrown as the contract's HTTP error. */
  async createTask(body: object): Promise<VideoTaskReplyDto> {
    const response = await this.send(() =>
      this.http.axiosRef.post<unknown>(`${this.target.url}/ent/v2/reference2video`, body, this.requestOptions()),
    );
    if (response.status < 200 || response.status >= 300) {
      throw upstreamFailure(response.status, response.data, response.headers, this.target.apiKey);
    }
    const reply = parseTaskReply(response.data);
    if (!reply) {
      throw new BadGatewayException('the video service sent a reply that is not a task');
    }
    return reply;
  }

  /** The task's current state from the upstream (`GET /ent/v2/tasks/{id}/creations`); `stopping` abandons the call. */
  async queryTask(taskId: string, stopping?: AbortSignal): Promise<UpstreamTaskStatus> {
    const response = await this.send(() =>
      this.http.axiosRef.get<unknown>(`${this.target.url}/ent/v2/tasks/${encodeURIComponent(taskId)}/creations`, this.requestOptions(stopping)),
    );
    if (response.status < 200 || response.status >= 300) {
      throw upstreamFailure(response.status, response.data, response.headers, this.target.apiKey);
    }
    const status = parseTaskStatus(response.data);
    if (!status || status.taskId !== taskId) {
      throw new BadGatewayException('the video service sent a task status that cannot be read');
    }
    return status;
  }

  /** Asks the upstream to cancel a task (`POST /ent/v2/tasks/{id}/cancel`); resolves when it agreed (`{}`). */
  async cancelTask(taskId: string): Promise<void> {
    const response = await this.send(() =>
      this.http.axiosRef.post<unknown>(`${this.target.url}/ent/v2/tasks/${encodeURIComponent(taskId)}/cancel`, { id: taskId }, this.requestOptions()),
    );
    if (response.status < 200 || response.status >= 300) {
      throw cancelFailure(response.status, response.data, this.target.apiKey);
    }
    if (!isCancelAccepted(response.data)) {
      throw new BadGatewayException('the video service sent a cancel reply that cannot be read');
    }
  }

  private requestOptions(stopping?: AbortSignal) {
    return upstreamRequestOptions(this.target.apiKey, this.config.VIDEO_UPSTREAM_TIMEOUT_MS, stopping);
  }

  /**
   * Through HttpModule's axios instance directly: HttpService's Observable
   * wrapper cancels the finished request on unsubscribe, building (and
   * discarding) a CanceledError with its stack trace for every call.
   */
  private async send<R extends AxiosResponse<unknown>>(request: () => Promise<R>): Promise<R> {
    const call = this.calls.start();
    try {
      return call.answered(await request());
    } catch (error) {
      throw call.failed(error, this.transportFailure(error));
    }
  }

  private transportFailure(error: unknown): HttpException {
    const { code, message } = error as AxiosError;
    // The deadline (ERR_CANCELED), or the OS giving up on connecting first (a deadline over its ~2 min).
    if (code === 'ERR_CANCELED' || code === 'ETIMEDOUT') {
      return new GatewayTimeoutException(`the video service did not answer within ${this.config.VIDEO_UPSTREAM_TIMEOUT_MS} ms`);
    }
    const failure = badGatewayCause(error as AxiosError);
    // The client learns only which; operators need the cause. The code and message only: the
    // error object also holds the request, Authorization header included.
    this.logger.warn(`the video service ${failure}: ${code ?? 'no code'} (${message})`);
    return new BadGatewayException(`the video service ${failure}`);
  }
}

/** What a transport failure that is not a timeout was, for the client's 502 and the log. */
function badGatewayCause(error: AxiosError): string {
  if (error.message?.includes('maxContentLength')) return 'sent a reply that is too large';
  // Any other failure that carries a response happened part-way through the reply: axios' "stream
  // has been aborted", or the connection reset under a decompressing stream (ECONNRESET).
  if (error.response !== undefined) return 'cut its reply off';
  return 'could not be reached';
}
