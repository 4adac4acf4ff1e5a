import { Injectable, UnauthorizedException } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { UsersService } from '../users/users.service';
import { Principal } from './principal';

@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly users: UsersService) {
    super();
  }

  async validate(token: string): Promise<Principal> {
    const principal = await this.users.authenticate(token);
    if (!principal) {
      throw new UnauthorizedException('invalid or revoked access token');
    }
    return principal;
  }
}
