import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentUser } from '../auth/authenticated.decorator';
import { Principal } from '../auth/principal';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { PageQueryDto } from '../common/pagination/page-query.dto';
import { CreateTokenDto, CreatedTokenDto, LedgerPageDto, UserDto, WebhookSecretDto } from './dto/user.dto';
import { UsersService } from './users.service';

@ApiTags('users')
@Authenticated()
@Controller('users/me')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  /** The caller's profile and credit balance. */
  @Get()
  me(@CurrentUser() user: Principal): Promise<UserDto> {
    return this.users.getUser(user.id);
  }

  /** Creates a personal access token for the caller. The token is shown only in this reply. */
  @Post('tokens')
  @ApiErrors(400)
  createToken(@CurrentUser() user: Principal, @Body() body: CreateTokenDto): Promise<CreatedTokenDto> {
    return this.users.createToken(user.id, body);
  }

  /** Revokes one of the caller's tokens; it stops working at once. */
  @Delete('tokens/:tokenId')
  @HttpCode(204)
  @ApiErrors(404)
  revokeToken(@CurrentUser() user: Principal, @Param('tokenId') tokenId: string): Promise<void> {
    return this.users.revokeToken(user.id, tokenId);
  }

  /** The secret that signs the caller's task callbacks (created on first use). */
  @Get('webhook-secret')
  webhookSecret(@CurrentUser() user: Principal): Promise<WebhookSecretDto> {
    return this.users.webhookSecret(user.id);
  }

  /** Replaces the webhook secret; callbacks sent from now on use the new one. */
  @Post('webhook-secret/rotate')
  @HttpCode(200)
  rotateWebhookSecret(@CurrentUser() user: Principal): Promise<WebhookSecretDto> {
    return this.users.rotateWebhookSecret(user.id);
  }

  /** The caller's credit movements, newest first. */
  @Get('ledger')
  @ApiErrors(400)
  ledger(@CurrentUser() user: Principal, @Query() query: PageQueryDto): Promise<LedgerPageDto> {
    return this.users.ledger(user.id, query.page, query.limit);
  }
}
