/**
 * The embodiment's skills as the curriculum knows them: captions (what plans and the library are written in), the
 * machine ids the robot runs, task families (Fig. 5), the base library, and the largest possible evaluation return.
 * Everything comes from the arm's catalogue and the shared messages (robots/manifests/blocks/skills.ts, robots/msgs/); the simulator itself is never imported.
 */
import { BASE_SKILLS, SKILLS, skillByCaption, skillInfo } from "../../../robots/manifests/blocks/skills";
import { EVAL_STEPS, PARAM_NAMES, stateFromRow } from "../../../robots/msgs/blocks";
import { type Episode } from "../../../robots/msgs/runSkills";
import { priorPolicy, type SkillPolicy } from "../../../models/learning/policy";

/** Every skill the embodiment can reward (and so learn), by caption. */
export const rewardableSkills = () => SKILLS.map((s) => s.caption);

/** The library the curriculum starts from: the pretrained base skills (open/close gripper, grasp anything, reach X). */
export const baseLibrary = () => BASE_SKILLS.map((id) => skillInfo(id).caption);

export function skillId(caption: string): string {
  const skill = skillByCaption(caption);
  if (!skill)
    throw new Error(
      `no skill with the caption "${caption}"; the embodiment's skills are: ${rewardableSkills().join(", ")}`,
    );
  return skill.id;
}

export const familyOf = (caption: string) => skillByCaption(caption)?.family ?? "unknown";

/** Rewards are in [0, 1] and an evaluation episode has a fixed number of control steps: the curve's known maximum. */
export const maxReturn = () => EVAL_STEPS;

/** Block centres (red, green, blue; x, y, z each) at a state row of an episode. */
export function blockCentres(ep: Episode, row: number): number[] {
  const blockState = stateFromRow(ep.states[row]);
  return (["red", "green", "blue"] as const).flatMap((c) => [...blockState.blocks[c]]);
}

/**
 * Where a new skill's learning starts: the learner's uninformed prior, except that the blocks its caption names are
 * preferred as the controller's source (the first named) and destination (the second) — what a text-conditioned policy
 * takes from "stack red on green" before any training. Nothing else (grasping, letting go, heights) is assumed: a prior
 * that already did the skill would leave nothing to learn.
 */
export function captionedPrior(id: string): SkillPolicy {
  const prior = priorPolicy(id);
  const [src, dst] = skillInfo(id).blocks;
  const mean = [...prior.mean];
  const prefer = (prefix: "src" | "dst", colour: string | undefined) => {
    if (!colour) return;
    PARAM_NAMES.forEach((name, i) => {
      if (name.startsWith(`${prefix}_`)) mean[i] = name === `${prefix}_${colour}` ? 0.6 : -0.6;
    });
  };
  prefer("src", src);
  prefer("dst", dst);
  return { ...prior, mean };
}
