// wl_xdnd_drop WINDOW X Y FILE: drops FILE on an X window as a file manager does, through the
// XDND protocol (version 5): the enter, position and drop messages, then the file's URI handed
// over as the selection the window asks for. It is how the window tests drop a kernel file on
// WarpLens under Xvfb, where xdotool can move and click but not drag a file.
// Exits 0 once the window says the drop is finished, 1 with the reason otherwise.

#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>

namespace {

struct Atoms {
  Atom aware, enter, position, status, drop, finished, selection, action_copy, uri_list;
  explicit Atoms(Display* d)
      : aware(XInternAtom(d, "XdndAware", False)), enter(XInternAtom(d, "XdndEnter", False)),
        position(XInternAtom(d, "XdndPosition", False)),
        status(XInternAtom(d, "XdndStatus", False)), drop(XInternAtom(d, "XdndDrop", False)),
        finished(XInternAtom(d, "XdndFinished", False)),
        selection(XInternAtom(d, "XdndSelection", False)),
        action_copy(XInternAtom(d, "XdndActionCopy", False)),
        uri_list(XInternAtom(d, "text/uri-list", False)) {}
};

void send(Display* d, Window target, Atom type, long l0, long l1, long l2, long l3, long l4) {
  XEvent e{};
  e.xclient.type = ClientMessage;
  e.xclient.window = target;
  e.xclient.message_type = type;
  e.xclient.format = 32;
  e.xclient.data.l[0] = l0;
  e.xclient.data.l[1] = l1;
  e.xclient.data.l[2] = l2;
  e.xclient.data.l[3] = l3;
  e.xclient.data.l[4] = l4;
  XSendEvent(d, target, False, NoEventMask, &e);
  XFlush(d);
}

// Hands the URI list to the window that asked for the selection.
void answer(Display* d, const XSelectionRequestEvent& request, const Atoms& atoms,
            const std::string& uri) {
  XEvent reply{};
  reply.xselection.type = SelectionNotify;
  reply.xselection.requestor = request.requestor;
  reply.xselection.selection = request.selection;
  reply.xselection.target = request.target;
  reply.xselection.time = request.time;
  reply.xselection.property = None;
  if (request.target == atoms.uri_list) {
    XChangeProperty(d, request.requestor, request.property, atoms.uri_list, 8, PropModeReplace,
                    reinterpret_cast<const unsigned char*>(uri.data()),
                    static_cast<int>(uri.size()));
    reply.xselection.property = request.property;
  }
  XSendEvent(d, request.requestor, False, NoEventMask, &reply);
  XFlush(d);
}

int fail(const char* why) {
  std::fprintf(stderr, "wl_xdnd_drop: %s\n", why);
  return 1;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 5)
    return fail("usage: wl_xdnd_drop WINDOW X Y FILE");
  Display* d = XOpenDisplay(nullptr);
  if (!d)
    return fail("no X display");
  const Window target = std::strtoul(argv[1], nullptr, 0);
  const long x = std::atol(argv[2]), y = std::atol(argv[3]);
  const std::string uri =
      "file://" + std::filesystem::absolute(argv[4]).lexically_normal().string() + "\r\n";
  const Atoms atoms(d);
  const Window source = XCreateSimpleWindow(d, DefaultRootWindow(d), 0, 0, 1, 1, 0, 0, 0);
  XSetSelectionOwner(d, atoms.selection, source, CurrentTime);

  // Where on the screen the drop lands: the window's point (x, y) in root coordinates.
  int root_x = 0, root_y = 0;
  Window child = 0;
  XTranslateCoordinates(d, target, DefaultRootWindow(d), static_cast<int>(x), static_cast<int>(y),
                        &root_x, &root_y, &child);
  send(d, target, atoms.enter, static_cast<long>(source), 5L << 24,
       static_cast<long>(atoms.uri_list), 0, 0);
  send(d, target, atoms.position, static_cast<long>(source), 0, (root_x << 16) | root_y,
       CurrentTime, static_cast<long>(atoms.action_copy));

  bool dropped = false;
  for (const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
       std::chrono::steady_clock::now() < end;) {
    if (!XPending(d)) {
      struct timespec pause {
        0, 10'000'000
      };
      nanosleep(&pause, nullptr);
      continue;
    }
    XEvent e;
    XNextEvent(d, &e);
    if (e.type == ClientMessage && e.xclient.message_type == atoms.status) {
      if (!(e.xclient.data.l[1] & 1))
        return fail("the window refused the drop (it takes no text/uri-list)");
      if (!dropped)
        send(d, target, atoms.drop, static_cast<long>(source), 0, CurrentTime, 0, 0);
      dropped = true;
    } else if (e.type == SelectionRequest) {
      answer(d, e.xselectionrequest, atoms, uri);
    } else if (e.type == ClientMessage && e.xclient.message_type == atoms.finished) {
      XCloseDisplay(d);
      return 0;
    }
  }
  return fail(dropped ? "the window never said the drop was finished"
                      : "the window never answered the drag (is it XDND aware?)");
}
