import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { ApiInteger } from '../../common/openapi/api-integer.decorator';
import { CheckedBy } from '../../common/validation/body-rules';
import { IsHttpUrl, NotNullable } from '../../common/validation/validators';
import { MAX_DURATION_ANY_MODEL, VIDEO_MODELS, VideoModel } from '../video-models';
import { IsImageReference, IsJsonString, MaxCodePoints } from './video-validators';
import { VideoRequestRules } from './video-request.rules';

export const AUDIO_TYPES = ['all', 'speech_only', 'sound_effect_only'] as const;
export const MOVEMENT_AMPLITUDES = ['auto', 'small', 'medium', 'large'] as const;
export const VIDEO_STYLES = ['general', 'anime'] as const;
export const RESOLUTIONS = ['360p', '540p', '720p', '1080p', '2K'] as const;
export const MAX_PROMPT_CODE_POINTS = 2000;
export const MAX_PAYLOAD_CODE_POINTS = 1_048_576;
export const MAX_IMAGES = 7;
const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

/**
 * A reference-to-video task. No field is required (omit a field rather than send null); `model` defaults to the
 * configured model. The rules that need the configuration (the model's duration, a public callback) are in
 * VideoRequestRules.
 */
@CheckedBy(VideoRequestRules)
export class CreateVideoTaskDto {
  /** @example 16:9 */
  @NotNullable()
  @IsString()
  @MaxLength(32)
  aspect_ratio?: string;

  /** Enables direct audio-video generation. Default true for the q3 model. */
  @NotNullable()
  @IsBoolean()
  audio?: boolean;

  /** all (sound effects and vocals), speech_only or sound_effect_only. Applies when audio is true; no effect for the q3 model. */
  @ApiProperty({ enum: AUDIO_TYPES, required: false })
  @NotNullable()
  @IsIn(AUDIO_TYPES)
  audio_type?: (typeof AUDIO_TYPES)[number];

  /** Adds background music. No effect for the q3 model. */
  @NotNullable()
  @IsBoolean()
  bgm?: boolean;

  /** URL that receives task status updates (absolute http(s)). */
  @NotNullable()
  @IsHttpUrl()
  @MaxLength(2048)
  callback_url?: string;

  /** Seconds: videoq3-pro 1-16, videoq2-pro-fast 1-10, videoq2-pro and videoq2-turbo 1-8, other models 1-16. */
  @ApiInteger({ minimum: 1, maximum: MAX_DURATION_ANY_MODEL, format: 'int32' })
  @NotNullable()
  @IsInt()
  @Min(1)
  @Max(MAX_DURATION_ANY_MODEL)
  duration?: number;

  @NotNullable()
  @IsBoolean()
  enhance?: boolean;

  /** Reference images (at most 7), each an http(s) URL or a base64 data URI of a png, jpeg or webp image. One image is used as a start frame. */
  @ApiProperty({ required: false, type: [String], maxItems: MAX_IMAGES })
  @NotNullable()
  @IsArray()
  @ArrayMaxSize(MAX_IMAGES)
  @IsImageReference()
  images?: string[];

  /** Uses the recommended prompt; costs 10 additional credits. */
  @NotNullable()
  @IsBoolean()
  is_rec?: boolean;

  /** A string holding JSON: custom metadata. */
  @ApiProperty({ required: false, example: '{"order":"A-17"}' })
  @NotNullable()
  @IsString()
  @IsJsonString()
  @MaxLength(65536)
  meta_data?: string;

  /** Defaults to the configured model (VIDEO_DEFAULT_MODEL). */
  @ApiProperty({ enum: VIDEO_MODELS, required: false })
  @NotNullable()
  @IsIn(VIDEO_MODELS)
  model?: VideoModel;

  /** No effect for q2 and q3 models. */
  @ApiProperty({ enum: MOVEMENT_AMPLITUDES, required: false })
  @NotNullable()
  @IsIn(MOVEMENT_AMPLITUDES)
  movement_amplitude?: (typeof MOVEMENT_AMPLITUDES)[number];

  /** Lower cost; the task is generated within 48 hours. */
  @NotNullable()
  @IsBoolean()
  off_peak?: boolean;

  /** Transparent transmission parameters: at most 1048576 characters (Unicode code points). */
  @ApiProperty({ required: false, maxLength: MAX_PAYLOAD_CODE_POINTS })
  @NotNullable()
  @IsString()
  @MaxCodePoints(MAX_PAYLOAD_CODE_POINTS)
  payload?: string;

  @ApiInteger({ format: 'int32' })
  @NotNullable()
  @IsInt()
  @Min(INT32_MIN)
  @Max(INT32_MAX)
  priority?: number;

  /** Text prompt: at most 2000 characters (Unicode code points). */
  @ApiProperty({ required: false, maxLength: MAX_PROMPT_CODE_POINTS })
  @NotNullable()
  @IsString()
  @MaxCodePoints(MAX_PROMPT_CODE_POINTS)
  prompt?: string;

  /** Availability depends on model and duration. */
  @ApiProperty({ enum: RESOLUTIONS, required: false })
  @NotNullable()
  @IsIn(RESOLUTIONS)
  resolution?: (typeof RESOLUTIONS)[number];

  /** Random when omitted. */
  @ApiInteger({ format: 'int32' })
  @NotNullable()
  @IsInt()
  @Min(INT32_MIN)
  @Max(INT32_MAX)
  seed?: number;

  @ApiProperty({ enum: VIDEO_STYLES, required: false })
  @NotNullable()
  @IsIn(VIDEO_STYLES)
  style?: (typeof VIDEO_STYLES)[number];

  /** Voice for audio. No effect for the q3 model. */
  @NotNullable()
  @IsString()
  @MaxLength(256)
  voice_id?: string;

  /** Default false. */
  @NotNullable()
  @IsBoolean()
  watermark?: boolean;

  /** 1 top left, 2 top right, 3 bottom right (default), 4 bottom left. */
  @ApiInteger({ minimum: 1, maximum: 4, format: 'int32' })
  @NotNullable()
  @IsInt()
  @Min(1)
  @Max(4)
  wm_position?: number;

  /** Watermark image URL (absolute http(s)); a default watermark is used when omitted. */
  @NotNullable()
  @IsHttpUrl()
  @MaxLength(2048)
  wm_url?: string;
}
