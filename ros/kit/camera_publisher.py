#!/usr/bin/env python3
"""A ROS 1 camera as a robot's driver runs one, for the bench (evals/bench/ros.ts): a rospy node that publishes one
640x480 frame at its own rate, with a fresh header stamp each time, as

- raw:  sensor_msgs/Image rgb8 on TOPIC (a camera driver's image_raw)
- jpeg: sensor_msgs/CompressedImage jpeg on TOPIC (image_transport's compressed plugin)

Usage: camera_publisher.py raw|jpeg TOPIC RATE_HZ [FRAME_FILE]
FRAME_FILE holds the frame's raw rgb8 pixels (width*height*3 bytes; the bench passes a rendered kitchen frame, so a
JPEG is as large as a real scene's); without it a textured test pattern. The JPEG is encoded once: a driver's encoding
cost is the robot's, not what the bench measures. Prints "ready" once its publisher is advertised.
"""
import io
import sys

import rospy
from sensor_msgs.msg import CompressedImage, Image

W, H = 640, 480


def test_pattern():
    # Gradients and a checker, so a JPEG of it is not trivially small.
    rows = []
    for y in range(H):
        row = bytearray(W * 3)
        for x in range(W):
            checker = 60 if ((x // 16) + (y // 16)) % 2 else 0
            row[3 * x : 3 * x + 3] = bytes(((x * 255) // W, (y * 255) // H, (128 + checker + x * y) % 256))
        rows.append(bytes(row))
    return b"".join(rows)


def jpeg(rgb):
    from PIL import Image as Pil

    out = io.BytesIO()
    Pil.frombytes("RGB", (W, H), rgb).save(out, format="JPEG", quality=90)
    return out.getvalue()


def main():
    encoding, topic, rate_hz = sys.argv[1], sys.argv[2], float(sys.argv[3])
    if encoding not in ("raw", "jpeg"):
        sys.exit("encoding must be raw or jpeg, got %r" % encoding)
    rgb = open(sys.argv[4], "rb").read() if len(sys.argv) > 4 else test_pattern()
    if len(rgb) != W * H * 3:
        sys.exit("frame file has %d bytes, not %d (640x480 rgb8)" % (len(rgb), W * H * 3))
    rospy.init_node("bench_camera", anonymous=True, disable_signals=False)
    # queue_size=1: a camera sends its newest frame; one a slow subscriber has not taken is dropped, not queued.
    if encoding == "raw":
        pub = rospy.Publisher(topic, Image, queue_size=1)
        msg = Image(height=H, width=W, encoding="rgb8", is_bigendian=0, step=W * 3, data=rgb)
    else:
        pub = rospy.Publisher(topic, CompressedImage, queue_size=1)
        msg = CompressedImage(format="rgb8; jpeg compressed bgr8", data=jpeg(rgb))
    msg.header.frame_id = "camera_optical"
    print("ready", flush=True)
    rate = rospy.Rate(rate_hz)
    while not rospy.is_shutdown():
        msg.header.stamp = rospy.Time.now()
        pub.publish(msg)
        try:
            rate.sleep()
        except rospy.ROSInterruptException:
            break


if __name__ == "__main__":
    main()
