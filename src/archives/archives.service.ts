import { BadRequestException, Inject, Injectable, NotFoundException, PayloadTooLargeException, UnsupportedMediaTypeException } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { Counter } from 'prom-client';
import typeIs from 'type-is';
import { continueBody } from '../common/http/expect-continue';
import { appConfig, AppConfig } from '../config/config.module';
import { Principal } from '../auth/principal';
import { ArchiveAccess, ArchiveAccessPolicy } from './archive-access';
import { ByteRange, Representation, ZIP_ARCHIVE } from './archive-download';
import { ArchiveLinks } from './archive-links';
import { ArchiveStorage, ArchiveTooLargeError, NotAZipError, SHA256_HEX, StoredArchive } from './archive-storage';
import { archivesConfig, ArchivesConfig } from './archives.config';

/** application/zip, and the names some clients send for it; the zip signature is the real check. */
const ARCHIVE_TYPES = ['application/zip', 'application/x-zip-compressed', 'application/octet-stream'];

/** The counters of archives stored (declared in archives.module.ts). */
export const ARCHIVES_STORED = 'registry_archives_stored_total';
export const ARCHIVE_BYTES_STORED = 'registry_archives_stored_bytes_total';

/** An archive released to one caller only (a member reviewing it, an admin): no shared cache keeps it. */
const CALLERS_ARCHIVE: Representation = { ...ZIP_ARCHIVE, cacheControl: 'private, no-store' };

@Injectable()
export class ArchivesService {
  private readonly accessPolicies: ArchiveAccessPolicy[] = [];

  constructor(
    private readonly storage: ArchiveStorage,
    @Inject(archivesConfig.KEY) private readonly config: ArchivesConfig,
    @Inject(appConfig.KEY) private readonly app: AppConfig,
    @InjectMetric(ARCHIVES_STORED) private readonly archivesStored: Counter,
    @InjectMetric(ARCHIVE_BYTES_STORED) private readonly bytesStored: Counter,
  ) {}

  /**
   * Reads an archive upload from a raw-body route's request (see
   * `@RawBody()`). The Content-Type must name a zip and the body must be one, at most
   * ARCHIVE_MAX_BYTES: a declared Content-Length over it is refused before
   * anything is read, a body that grows past it as soon as it does. Every
   * refusal is an HttpException (400, 413, 415) and stores nothing.
   */
  async receive(req: IncomingMessage): Promise<StoredArchive> {
    if (!typeIs.is(req.headers['content-type'] ?? '', ARCHIVE_TYPES)) {
      throw new UnsupportedMediaTypeException('request body must be application/zip');
    }
    const maxBytes = this.config.ARCHIVE_MAX_BYTES;
    if (Number(req.headers['content-length'] ?? 0) > maxBytes) {
      throw new PayloadTooLargeException(new ArchiveTooLargeError(maxBytes).message);
    }
    continueBody(req);
    try {
      return this.counted(await this.storage.save(req, maxBytes));
    } catch (error) {
      // The refused rest is left unread: once the reply has gone out, it is drained at a bounded
      // rate (src/common/http/refused-body-drain.ts), so the client gets the reply, not a reset.
      throw this.refusal(error, req);
    }
  }

  /** The bytes of an archive already in hand (the CLI's demo), with the same checks as an upload. */
  async store(zip: Buffer): Promise<StoredArchive> {
    return this.counted(await this.storage.save(Readable.from([zip]), this.config.ARCHIVE_MAX_BYTES));
  }

  /**
   * The links of a reply to a request from `origin` (the request's own, e.g. `http://127.0.0.1:3000`):
   * `{PUBLIC_BASE_URL or origin}/archives/{sha256}.zip`. Made for each reply, never stored: a stored
   * link would keep the host of whoever uploaded (a Host header of their choosing) and outlive a change
   * of PUBLIC_BASE_URL.
   */
  linksFor(origin: string): ArchiveLinks {
    const base = this.baseUrl(origin);
    return (sha256) => {
      if (!SHA256_HEX.test(sha256)) throw new Error(`not a sha256: ${JSON.stringify(sha256.slice(0, 80))}`);
      return `${base}/archives/${sha256}.zip`;
    };
  }

  /** Where clients reach this service: PUBLIC_BASE_URL, or else the request's own origin; no trailing slash. */
  baseUrl(origin: string): string {
    return (this.app.PUBLIC_BASE_URL ?? origin).replace(/\/+$/, '');
  }

  /** A feature that stores archives says who may download the ones it references (called once, at its module's init). */
  governDownloads(policy: ArchiveAccessPolicy): void {
    this.accessPolicies.push(policy);
  }

  /**
   * The archive `caller` may download, with how to label it; 404 when it is
   * not stored or not released to them (the same answer, so an unreleased
   * archive's existence is not told).
   */
  async downloadable(sha256: string, caller: Principal | undefined): Promise<{ archive: StoredArchive; representation: Representation }> {
    const archive = await this.find(sha256);
    const access = archive ? await this.accessTo(sha256, caller) : 'none';
    if (!archive || access === 'none') throw new NotFoundException('archive not found');
    return { archive, representation: access === 'public' ? ZIP_ARCHIVE : CALLERS_ARCHIVE };
  }

  private async accessTo(sha256: string, caller: Principal | undefined): Promise<ArchiveAccess> {
    let access: ArchiveAccess = 'none';
    for (const policy of this.accessPolicies) {
      const granted = await policy.accessTo(sha256, caller);
      if (granted === 'public') return granted;
      if (granted === 'caller') access = granted;
    }
    return access;
  }

  /** The stored archive named `sha256`, or null (also for a name that is not a sha256, which is never looked up). */
  async find(sha256: string): Promise<StoredArchive | null> {
    if (!SHA256_HEX.test(sha256)) return null;
    const stat = await this.storage.stat(sha256);
    return stat && { sha256, size: stat.size };
  }

  read(sha256: string, range?: ByteRange): Readable {
    return this.storage.read(sha256, range);
  }

  /** For the metrics: an archive accepted and stored (bytes already stored count again: the upload happened). */
  private counted(archive: StoredArchive): StoredArchive {
    this.archivesStored.inc();
    this.bytesStored.inc(archive.size);
    return archive;
  }

  private refusal(error: unknown, req: IncomingMessage): unknown {
    if (error instanceof ArchiveTooLargeError) return new PayloadTooLargeException(error.message);
    if (error instanceof NotAZipError) return new BadRequestException(error.message);
    // The client went away mid-upload: nobody reads this reply, and the request log records the abort.
    if (req.destroyed && !req.complete) return new BadRequestException('the request body ended before it was complete');
    // Anything else (a full disk): the filter's 500, logged with its details.
    return error;
  }
}
