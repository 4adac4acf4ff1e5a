import { Body, Controller, Injectable, Module, Post } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { IsInt } from 'class-validator';
import { BodyProblem, BodyRules, CheckedBy } from './body-rules';
import { BodyRulesCheck } from './body-rules-check';

@Injectable()
class EvenRules implements BodyRules<CountBody> {
  problems(body: CountBody): BodyProblem[] {
    return body.count % 2 === 0 ? [] : [{ property: 'count', message: 'count must be even' }];
  }
}

@CheckedBy(EvenRules)
class CountBody {
  @IsInt()
  count!: number;
}

class BaseController {
  @Post('inherited')
  inherited(@Body() body: CountBody): CountBody {
    return body;
  }
}

@Controller('counts')
class InheritingController extends BaseController {}

@Controller('counts')
class CountsController {
  @Post()
  create(@Body() body: CountBody): CountBody {
    return body;
  }
}

@Module({ providers: [EvenRules] })
class RulesModule {}

async function start(controllers: Array<new () => object>, withRules: boolean): Promise<void> {
  const moduleRef = await Test.createTestingModule({
    imports: [DiscoveryModule, ...(withRules ? [RulesModule] : [])],
    controllers,
    providers: [BodyRulesCheck],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  try {
    await app.init();
  } finally {
    await app.close();
  }
}

describe('BodyRulesCheck', () => {
  it('fails the start when a body is checked by rules no module provides, naming both', async () => {
    await expect(start([CountsController], false)).rejects.toThrow('CountBody is checked by EvenRules, which no module provides');
  });

  it('finds a body of a route the controller inherits', async () => {
    await expect(start([InheritingController], false)).rejects.toThrow('CountBody is checked by EvenRules');
  });

  it('lets the start go on when another module provides the rules', async () => {
    await expect(start([CountsController, InheritingController], true)).resolves.toBeUndefined();
  });
});
