import { IsString, MaxLength } from 'class-validator';
import { Nullable } from '../../../src/common/validation/validators';

export class BookmarkInputDto {
  /** A private note about the node; null clears it. @example try with the 1.10 release */
  @Nullable()
  @IsString()
  @MaxLength(280)
  note?: string | null;
}

export class BookmarkDto {
  /** The node's id, as the registry spells it. */
  node_id!: string;

  /** Absent when the bookmark has no note. */
  note?: string;

  /** When the node was first bookmarked (ISO 8601). */
  created_at!: string;
}
