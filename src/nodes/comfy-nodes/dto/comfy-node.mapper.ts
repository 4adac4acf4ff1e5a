import { absentIfNull } from '../../../common/replies/omit-absent';
import { ComfyNodeEntity } from '../entities/comfy-node.entity';
import { ComfyNodeDto } from './comfy-node.dto';

/** A node class as every reply shows it. */
export function toComfyNodeDto(comfyNode: ComfyNodeEntity): ComfyNodeDto {
  return {
    comfy_node_name: comfyNode.name,
    category: absentIfNull(comfyNode.category),
    description: absentIfNull(comfyNode.description),
    function: absentIfNull(comfyNode.function),
    input_types: absentIfNull(comfyNode.inputTypes),
    return_types: absentIfNull(comfyNode.returnTypes),
    return_names: absentIfNull(comfyNode.returnNames),
    output_is_list: absentIfNull(comfyNode.outputIsList),
    deprecated: absentIfNull(comfyNode.deprecated),
    experimental: absentIfNull(comfyNode.experimental),
  };
}
