import { GoneException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { EntityManager } from 'typeorm';
import { ByteRange, Representation } from '../../archives/archive-download';
import { ArchiveStorage, SHA256_HEX } from '../../archives/archive-storage';
import { Principal } from '../../auth/principal';
import { unstorableText } from '../../common/validation/storable-text';
import { SignedQuery } from '../../common/signing/signed-query';
import { MAX_CREATION_ID_LENGTH, VideoResultEntity, VideoResultKind, VideoResultState } from '../entities/video-result.entity';
import { VideoCreation, VideoTaskEntity } from '../entities/video-task.entity';
import { ResultLinks } from './result-links';
import { RESULT_STORAGE } from './result-storage';
import { VideoResultsRepository } from './video-results.repository';

/** The upstream's creation links expire this long after the task succeeded (docs/api-rules.md §4.4). */
export const UPSTREAM_LINK_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** Where a creation's files stand here, as the task reply shows them. */
export interface StoredCreation {
  store_state: VideoResultState;
  stored_url?: string;
  stored_cover_url?: string;
}

/** A kept file, ready to be sent (see sendDownload). */
export interface ServableResult {
  sha256: string;
  size: number;
  representation: Representation;
  read: (range?: ByteRange) => Readable;
}

const storable = (text: string) => unstorableText(text) === undefined;

/** One state for a creation's files: a failure or deletion of either shows; stored once all are. */
function creationState(files: VideoResultEntity[]): VideoResultState {
  for (const state of ['failed', 'deleted', 'pending'] as const) {
    if (files.some((file) => file.state === state)) return state;
  }
  return 'stored';
}

/**
 * Kept results (docs/api-rules.md §4.4): the jobs a success queues, the
 * signed links the task reply carries, and who may read a file.
 */
@Injectable()
export class VideoResultsService {
  constructor(
    private readonly results: VideoResultsRepository,
    private readonly links: ResultLinks,
    @Inject(RESULT_STORAGE) private readonly storage: ArchiveStorage,
  ) {}

  /**
   * Queues a job per file of the task's creations, inside the transaction
   * that records its success (`successSeenAt`: when this service first saw
   * it, which the upstream's links expire a day after). A creation whose id
   * is repeated (its first files are kept), too long for a job, or whose id
   * or link holds text no database stores (a NUL, an unpaired surrogate) gets
   * no job: it must not keep the success from being recorded.
   */
  enqueue(manager: EntityManager, task: VideoTaskEntity, successSeenAt: Date): Promise<void> {
    const now = new Date();
    const linksExpireAt = new Date(successSeenAt.getTime() + UPSTREAM_LINK_LIFETIME_MS);
    const job = (creationId: string, kind: VideoResultKind, sourceUrl: string): VideoResultEntity => ({
      id: randomUUID(),
      taskId: task.taskId,
      userId: task.userId,
      creationId,
      kind,
      sourceUrl,
      state: 'pending',
      attempts: 0,
      nextAttemptAt: now,
      linksExpireAt,
      sha256: null,
      contentType: null,
      storedAt: null,
      lastError: null,
      createdAt: now,
    });
    const keepable = new Map<string, VideoCreation>();
    for (const creation of task.creations ?? []) {
      const nameable = [...creation.id].length <= MAX_CREATION_ID_LENGTH && storable(creation.id) && storable(creation.url);
      if (nameable && !keepable.has(creation.id)) keepable.set(creation.id, creation);
    }
    const jobs = [...keepable.values()].flatMap((creation) => [
      job(creation.id, 'video', creation.url),
      // A creation may come without a still image.
      ...(creation.cover_url && storable(creation.cover_url) ? [job(creation.id, 'cover', creation.cover_url)] : []),
    ]);
    return this.results.insert(manager, jobs);
  }

  /** By task id, then creation id: the state of each creation's files and fresh signed links to those stored. */
  async storedCreations(taskIds: string[], baseUrl: string): Promise<Map<string, Map<string, StoredCreation>>> {
    const byTask = new Map<string, Map<string, VideoResultEntity[]>>();
    for (const file of await this.results.forTasks(taskIds)) {
      const creations = byTask.get(file.taskId) ?? new Map<string, VideoResultEntity[]>();
      creations.set(file.creationId, [...(creations.get(file.creationId) ?? []), file]);
      byTask.set(file.taskId, creations);
    }
    const link = async (files: VideoResultEntity[], kind: VideoResultKind) => {
      const file = files.find((f) => f.kind === kind && f.state === 'stored' && f.sha256);
      return file?.sha256 ? this.links.sign(file.sha256, baseUrl) : undefined;
    };
    const stored = new Map<string, Map<string, StoredCreation>>();
    for (const [taskId, creations] of byTask) {
      const entries = await Promise.all(
        [...creations].map(async ([creationId, files]): Promise<[string, StoredCreation]> => [
          creationId,
          { store_state: creationState(files), stored_url: await link(files, 'video'), stored_cover_url: await link(files, 'cover') },
        ]),
      );
      stored.set(taskId, new Map(entries));
    }
    return stored;
  }

  /**
   * A kept file for GET /proxy/video/results/{sha256}: the owner of a task it
   * belongs to, or an admin, needs no signature; anyone else a valid signed
   * link (403). A file deleted by the retention sweep is 410.
   */
  async open(caller: Principal | undefined, sha256: string, query: SignedQuery): Promise<ServableResult> {
    const files = SHA256_HEX.test(sha256) ? await this.results.withSha256(sha256) : [];
    const ownsOne = caller !== undefined && (caller.isAdmin || files.some((file) => file.userId === caller.id));
    // Each signed link is good until it expires, and a browser may keep it that long; a bearer read is not for caches.
    const cacheControl = ownsOne ? 'private, no-cache' : `private, max-age=${await this.links.verify(sha256, query)}`;
    const stored = files.find((file) => file.state === 'stored');
    const size = stored ? (await this.storage.stat(sha256))?.size : undefined;
    if (stored && size !== undefined) {
      const representation = { contentType: stored.contentType ?? 'application/octet-stream', cacheControl };
      return { sha256, size, representation, read: (range) => this.storage.read(sha256, range) };
    }
    // A stored row whose file is gone: a retention sweep deleted the file, then failed to commit. Past retention all the same.
    if (stored || files.some((file) => file.state === 'deleted')) {
      throw new GoneException('this result was deleted after its retention period');
    }
    throw new NotFoundException('result not found');
  }
}
