import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../auth/authenticated.decorator';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { BalanceDto, CreateTokenDto, CreateUserDto, CreatedTokenDto, GrantCreditsDto, UserDto } from './dto/user.dto';
import { CreditsService } from './credits.service';
import { UsersService } from './users.service';

/** Operator automation: the HTTP twin of the CLI's user, token and credit commands. */
@ApiTags('admin')
@Authenticated({ admin: true })
@Controller('admin/users')
export class AdminUsersController {
  constructor(
    private readonly users: UsersService,
    private readonly credits: CreditsService,
  ) {}

  /** Creates a user. */
  @Post()
  @ApiErrors(400, 409)
  createUser(@Body() body: CreateUserDto): Promise<UserDto> {
    return this.users.createUser(body);
  }

  /** Creates a personal access token for a user. The token is shown only in this reply. */
  @Post(':userId/tokens')
  @ApiErrors(400, 404)
  createToken(@Param('userId') userId: string, @Body() body: CreateTokenDto): Promise<CreatedTokenDto> {
    return this.users.createToken(userId, body);
  }

  /** Grants credits to a user (negative amounts correct a balance, never below 0; a balance holds at most 1,000,000,000, 400 past it). */
  @Post(':userId/credits')
  @HttpCode(200)
  @ApiErrors(400, 404)
  grantCredits(@Param('userId') userId: string, @Body() body: GrantCreditsDto): Promise<BalanceDto> {
    return this.credits.grant(userId, body.amount);
  }
}
