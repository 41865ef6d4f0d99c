//! Every request body must arrive in full within a time limit, counted from the moment the
//! request's head has been read. A body still incomplete then (a slow-loris client) gets
//! `408` with the JSON error `request_timeout`, and the connection is closed.
//!
//! Closed, not drained: every response to a request with a body holds the body's stream
//! until the response's last byte is written. actix decides then whether to keep the
//! connection, and a body still unread and held makes it close (after lingering for
//! `client_disconnect_timeout`); a dropped chunked body would be drained with no time
//! limit. So no body, read or not, keeps a connection open once it has been answered.
//! (actix itself limits only the head's arrival: `client_request_timeout`.)

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Duration;

use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::http::ConnectionType;
use actix_web::web::Bytes;
use actix_web::{HttpMessage, ResponseError};
use futures_util::{Stream, StreamExt};
use tokio::time::{sleep_until, Instant, Sleep};

use crate::error::AppError;

/// The request's body, shared by the stream the handler reads and the middleware that
/// answers; kept alive until the response is sent (see the module's comment).
struct WatchedBody {
    payload: RefCell<Payload>,
    expired: Cell<bool>,
    limit: Duration,
}

/// Handed from [`watch`] to [`answer`] for a request that has a body.
pub(super) struct BodyWatch(Rc<WatchedBody>);

/// Gives a request with a body a body stream that fails once `limit` has passed.
pub(super) fn watch(request: &mut ServiceRequest, limit: Duration) -> Option<BodyWatch> {
    let payload = request.take_payload();
    if matches!(payload, Payload::None) {
        return None;
    }
    let shared = Rc::new(WatchedBody {
        payload: RefCell::new(payload),
        expired: Cell::new(false),
        limit,
    });
    let body = DeadlineBody {
        shared: Rc::clone(&shared),
        deadline: Instant::now() + limit,
        timer: None,
    };
    let stream: Pin<Box<dyn Stream<Item = Result<Bytes, PayloadError>>>> = Box::pin(body);
    request.set_payload(Payload::from(stream));
    Some(BodyWatch(shared))
}

/// The handler's response, or 408 if the body's time ran out while it was being read.
pub(super) fn answer<B: MessageBody + 'static>(
    response: ServiceResponse<B>,
    watch: Option<BodyWatch>,
) -> ServiceResponse<BoxBody> {
    let Some(watch) = watch else {
        return response.map_into_boxed_body();
    };
    let response = if watch.0.expired.get() {
        let limit_secs = watch.0.limit.as_secs().max(1);
        let mut refused = AppError::RequestTimeout { limit_secs }.error_response();
        refused
            .head_mut()
            .set_connection_type(ConnectionType::Close);
        ServiceResponse::new(response.request().clone(), refused)
    } else {
        response.map_into_boxed_body()
    };
    response.map_body(|_, body| {
        BoxBody::new(HoldingBody {
            body,
            _watch: watch,
        })
    })
}

/// A response body that holds the request's body stream until it is dropped itself.
struct HoldingBody {
    body: BoxBody,
    _watch: BodyWatch,
}

impl MessageBody for HoldingBody {
    type Error = <BoxBody as MessageBody>::Error;

    fn size(&self) -> BodySize {
        self.body.size()
    }

    fn poll_next(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_next(cx)
    }
}

struct DeadlineBody {
    shared: Rc<WatchedBody>,
    deadline: Instant,
    /// Created on the first wait only: most bodies are already buffered when read.
    timer: Option<Pin<Box<Sleep>>>,
}

fn timed_out(limit: Duration) -> PayloadError {
    PayloadError::Io(std::io::Error::new(
        std::io::ErrorKind::TimedOut,
        format!("the request body did not arrive within {limit:?}"),
    ))
}

impl Stream for DeadlineBody {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        let expired = Poll::Ready(Some(Err(timed_out(this.shared.limit))));
        if this.shared.expired.get() || Instant::now() >= this.deadline {
            this.shared.expired.set(true);
            return expired;
        }
        if let Poll::Ready(item) = this.shared.payload.borrow_mut().poll_next_unpin(cx) {
            return Poll::Ready(item);
        }
        let deadline = this.deadline;
        let timer = this
            .timer
            .get_or_insert_with(|| Box::pin(sleep_until(deadline)));
        if timer.as_mut().poll(cx).is_ready() {
            this.shared.expired.set(true);
            return expired;
        }
        Poll::Pending
    }
}
