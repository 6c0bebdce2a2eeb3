/**
 * Detection messages (robograph_msgs/msg/Detections): what a simulated or real camera's detector publishes beside the
 * image. Both ends import this module — the worlds that publish and the agent that reads — as ROS keeps `*_msgs`.
 */

export interface Stamp {
  sec: number;
  nanosec: number;
}

export interface Header {
  stamp: Stamp;
  frame_id: string;
}

export interface BoundingBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** One object the detector reports in a manipulation world (kitchen, tabletop). */
export interface PlacedDetection {
  label: string;
  /** The label in plain words, as a person would say it ("bottle of tea"); what a viewer draws beside the box. */
  display?: string;
  score: number;
  box: BoundingBox;
  /** Where the object is, as far as the image shows: in/on a place, or in a robot's hand. */
  location: { relation: "in" | "on" | "held_by"; place: string };
  /** Colour name of the object's own pixels in this frame (worlds whose tasks need colour report it). */
  color?: string;
}

/** The detections topic's message of the manipulation worlds. */
export interface DetectionsMessage {
  header: Header;
  robot: string;
  width: number;
  height: number;
  detections: PlacedDetection[];
  /**
   * Places in view and whether each is open (places without a door are "open"); `pixels` counts the place's geoms,
   * `insidePixels` the surface things rest on — a place's contents are in view only when that surface is.
   */
  places: { name: string; state: "open" | "closed"; pixels: number; insidePixels: number }[];
}

/**
 * One object seen by an egocentric depth camera (a legged robot's head camera): its box, plus what the depth pixels
 * inside the box measure — as a depth camera with a segmenter would, never from a map.
 */
export interface RangedDetection {
  label: string;
  score: number;
  box: BoundingBox;
  /** Median range of the object's pixels, metres. */
  distance: number;
  /** Horizontal angle of the box centre from the optical axis, degrees; positive is to the robot's left. */
  bearing: number;
  /** Height above the ground of the object's highest visible point, metres. */
  top: number;
  /** Height above the ground of its lowest visible point, metres (the room beneath it, for things on legs). */
  underside: number;
  /** Visible width, metres. */
  width: number;
}

/** The detections topic's message of an egocentric depth camera. */
export interface RangedDetectionsMessage {
  header: Header;
  robot: string;
  width: number;
  height: number;
  /** Horizontal field of view, degrees. */
  fov: number;
  detections: RangedDetection[];
}
