import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { ApiInteger } from '../../common/openapi/api-integer.decorator';
import { toQueryInteger } from '../../common/pagination/page-query.dto';

export class ReviewQueryDto {
  /** Stars given to the node: an integer from 1 to 5. A repeat review by the same user replaces the first. */
  @ApiInteger()
  @Transform(toQueryInteger)
  @IsInt({ message: 'star must be an integer from 1 to 5' })
  @Min(1, { message: 'star must be an integer from 1 to 5' })
  @Max(5, { message: 'star must be an integer from 1 to 5' })
  star!: number;
}
