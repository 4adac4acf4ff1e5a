import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsEmail, IsInt, IsOptional, IsString, Length, Max, Min, NotEquals } from 'class-validator';
import { ApiInteger } from '../../common/openapi/api-integer.decorator';
import { PageDto } from '../../common/pagination/page-query.dto';
import { LEDGER_KINDS, LedgerKind } from '../entities/credit-ledger-entry.entity';
import { ApiDateTime } from '../../common/openapi/api-date-time.decorator';

// A named constant, not a negative literal: the Swagger CLI plugin cannot copy `-1_000_000_000`
// from @Min into the schema and then leaves the whole property out of the document.
const MIN_CREDIT_CHANGE = -1_000_000_000;
const MAX_CREDIT_CHANGE = 1_000_000_000;

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export class CreateUserDto {
  /** Unique, compared ignoring case. @example ada@example.com */
  @Transform(trim)
  @IsEmail()
  @Length(3, 320)
  email!: string;

  /** @example Ada Lovelace */
  @Transform(trim)
  @IsString()
  @Length(1, 256)
  name!: string;

  /** Admins may act on every publisher and use the admin API. */
  @IsOptional()
  @IsBoolean()
  is_admin?: boolean;
}

export class CreateTokenDto {
  /** A label to recognise the token by. @example laptop */
  @IsOptional()
  @IsString()
  @Length(1, 128)
  name?: string;
}

export class GrantCreditsDto {
  /** Credits to add; a negative amount corrects a balance but never takes it below 0. A balance holds at most 1,000,000,000 (400 past it). @example 500 */
  @ApiInteger()
  @IsInt()
  @NotEquals(0)
  @Min(MIN_CREDIT_CHANGE)
  @Max(MAX_CREDIT_CHANGE)
  amount!: number;
}

export class UserDto {
  id!: string;
  email!: string;
  name!: string;
  is_admin!: boolean;
  /** Current credit balance. */
  @ApiInteger()
  credits!: number;
}

export class CreatedTokenDto {
  id!: string;
  /** The token itself. Shown only now: store it, it cannot be retrieved again. */
  token!: string;
  /** The token's label; absent when it has none. */
  name?: string;
  @ApiDateTime()
  created_at!: string;
}

export class WebhookSecretDto {
  /** The HMAC-SHA256 key of your task callbacks' X-Signature header. */
  secret!: string;
}

export class BalanceDto {
  user_id!: string;
  @ApiInteger()
  balance!: number;
}

export class LedgerEntryDto {
  @ApiInteger()
  id!: number;
  /** @example grant */
  @ApiProperty({ enum: LEDGER_KINDS })
  kind!: LedgerKind;
  /** Signed: positive adds credits, negative takes them. */
  @ApiInteger()
  amount!: number;
  /** The balance right after this movement. */
  @ApiInteger()
  balance_after!: number;
  task_id?: string;
  @ApiDateTime()
  created_at!: string;
}

export class LedgerPageDto extends PageDto {
  entries!: LedgerEntryDto[];
}

