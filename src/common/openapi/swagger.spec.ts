import { Body, Controller, Get, INestApplication, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, OpenAPIObject } from '@nestjs/swagger';
import { Test } from '@nestjs/testing';
import { OperationObject, ParameterObject, RequestBodyObject, ResponseObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { Authenticated, Public } from '../../auth/authenticated.decorator';
import { appConfig } from '../../config/config.module';
import { CreateTokenDto } from '../../users/dto/user.dto';
import { NeverCached } from '../http/http-caching';
import { PageQueryDto } from '../pagination/page-query.dto';
import { buildOpenApiDocument } from './swagger';

/** Routes of each kind the document's post-processing tells apart, under a controller that needs a token. */
@Authenticated()
@Controller('probe')
class ProbeController {
  @Get('open')
  @Public()
  @ApiOkResponse()
  open(): void {}

  @Get('paged')
  paged(@Query() query: PageQueryDto): PageQueryDto {
    return query;
  }

  @Get('live')
  @NeverCached()
  live(): void {}

  @Post('optional-fields')
  optionalFields(@Body() body: CreateTokenDto): CreateTokenDto {
    return body;
  }

  @Post('alternatives')
  @ApiBody({ schema: { oneOf: [{ $ref: '#/components/schemas/CreateTokenDto' }] } })
  alternatives(@Body() body: CreateTokenDto): CreateTokenDto {
    return body;
  }
}

/** The other way round: a route that needs a token under a public controller. */
@Public()
@Controller('public-probe')
class PublicProbeController {
  @Get('closed')
  @Authenticated()
  closed(): void {}

  @Get('open')
  open(): void {}
}

describe('buildOpenApiDocument', () => {
  let app: INestApplication;
  let document: OpenAPIObject;
  const operation = (path: string, method: 'get' | 'post'): OperationObject => document.paths[`/probe/${path}`][method] as OperationObject;
  const body = (path: string) => operation(path, 'post').requestBody as RequestBodyObject;

  beforeAll(async () => {
    const module = await Test.createTestingModule({
      controllers: [ProbeController, PublicProbeController],
      providers: [{ provide: appConfig.KEY, useValue: {} }],
    }).compile();
    app = module.createNestApplication();
    document = buildOpenApiDocument(app);
  });
  afterAll(() => app.close());

  it('a @Public() route under a controller that needs a token needs none, and has no 401', () => {
    expect(operation('open', 'get').security).toBeUndefined();
    expect(operation('open', 'get').responses['401']).toBeUndefined();
    expect(operation('paged', 'get').security).toEqual([{ bearer: [] }]);
    expect(operation('paged', 'get').responses['401']).toBeDefined();
  });

  it('a route that needs a token under a @Public() controller needs it, with its 401', () => {
    const closed = document.paths['/public-probe/closed'].get as OperationObject;
    expect(closed.security).toEqual([{ bearer: [] }]);
    expect(closed.responses['401']).toBeDefined();
    expect(closed).not.toHaveProperty('x-public-operation');
    expect((document.paths['/public-probe/open'].get as OperationObject).security).toBeUndefined();
  });

  it('a query parameter with a default may be left out', () => {
    const parameters = (operation('paged', 'get').parameters as ParameterObject[]).filter((parameter) => parameter.in === 'query');
    expect(parameters.map(({ name, required }) => ({ name, required }))).toEqual([
      { name: 'page', required: false },
      { name: 'limit', required: false },
    ]);
  });

  it('a JSON body whose fields are all optional may be left out; one of alternatives may not', () => {
    expect(body('optional-fields').required).toBe(false);
    expect(body('alternatives').required).toBe(true);
  });

  it('every GET answers 304 to a matching If-None-Match, but a @NeverCached() one', () => {
    expect((operation('paged', 'get').responses['304'] as ResponseObject).description).toContain('If-None-Match');
    expect(operation('live', 'get').responses['304']).toBeUndefined();
    expect(operation('live', 'get')).not.toHaveProperty('x-never-cached-operation');
  });

  it('a GET that may answer 304 takes If-None-Match, and its 200 gives the ETag to send', () => {
    const headerParameters = (path: string) =>
      ((operation(path, 'get').parameters ?? []) as ParameterObject[]).filter((parameter) => parameter.in === 'header').map((parameter) => parameter.name);
    expect(headerParameters('paged')).toEqual(['If-None-Match']);
    expect(Object.keys((operation('open', 'get').responses['200'] as ResponseObject).headers ?? {})).toContain('ETag');
    expect(headerParameters('live')).toEqual([]);
    expect(document.components?.headers?.ETag).toBeDefined();
  });

  it('every operation documents 400, 408, 413 and 415, and every reply has a description', () => {
    for (const [path, method] of [['open', 'get'], ['live', 'get'], ['optional-fields', 'post']] as const) {
      expect(Object.keys(operation(path, method).responses)).toEqual(expect.arrayContaining(['400', '408', '413', '415']));
      for (const reply of Object.values(operation(path, method).responses)) expect((reply as ResponseObject).description).not.toBe('');
    }
    expect(operation('open', 'get').responses['200']).toMatchObject({ description: 'OK' });
  });

  it('every reply documents its X-Request-Id; a 401 its WWW-Authenticate, a 429 its Retry-After', () => {
    const replies = operation('paged', 'get').responses as Record<string, ResponseObject>;
    for (const reply of Object.values(replies)) expect(Object.keys(reply.headers ?? {})).toContain('X-Request-Id');
    expect(Object.keys(replies['401'].headers ?? {})).toEqual(['WWW-Authenticate', 'X-Request-Id']);
    expect(Object.keys(replies['429'].headers ?? {})).toEqual(['Retry-After', 'X-Request-Id']);
  });
});
