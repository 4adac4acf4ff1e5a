import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { StrictValidationPipe } from '../common/validation/validation.pipe';
import { CreateNodeVersionDto } from './dto/node-version.dto';
import { PublishNodeVersionDto } from './dto/publish.dto';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * POST /publishers/{p}/nodes/{n}/versions takes two bodies (docs/api-rules.md §6):
 * the bearer form (CreateNodeVersionDto) and the public registry CLI's
 * (PublishNodeVersionDto, recognised by its own keys). Each is then
 * validated by the global pipe's rules as its own class, so either shape
 * gets the same strict checks and messages as every other route.
 */
@Injectable()
export class PublishBodyPipe implements PipeTransform {
  private readonly validation = new StrictValidationPipe();

  transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const fromCli = isRecord(value) && ('personal_access_token' in value || 'node_version' in value);
    if (fromCli && isRecord(value.node)) {
      // The CLI sends "" for what the project's metadata leaves unset (an icon, a repository): no value, not an invalid URL.
      value.node = Object.fromEntries(Object.entries(value.node).filter(([, field]) => field !== ''));
    }
    return this.validation.transform(value, {
      ...metadata,
      metatype: fromCli ? PublishNodeVersionDto : CreateNodeVersionDto,
    });
  }
}
