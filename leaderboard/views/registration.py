"""Sign-up with email verification, and a login that is throttled after repeated failures."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.views import LoginView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from leaderboard.services.accounts import (
    account_send_verification,
    account_signup_refusal,
    account_verify,
    login_failed,
    login_refusal,
    login_succeeded,
)
from leaderboard.services.ratelimit import client_ip


class SignupForm(UserCreationForm):
    email = forms.EmailField(max_length=254, help_text="We send a link to confirm it; also used for password resets.")

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

    def clean_email(self) -> str:
        email = self.cleaned_data["email"].strip()
        if get_user_model().objects.filter(email__iexact=email).exists():
            raise forms.ValidationError("An account with this email address exists; log in or reset its password.")
        return email


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        refusal = account_signup_refusal(email=form.cleaned_data["email"], ip=client_ip(request))
        if refusal is not None:
            messages.error(request, refusal)
            return render(request, "registration/signup.html", {"form": form}, status=429)
        user = form.save(commit=False)
        user.email = form.cleaned_data["email"]
        user.is_active = False  # until the emailed link is followed
        user.save()
        account_send_verification(user=user, base_url=request.build_absolute_uri("/"))
        return render(request, "registration/verify_sent.html", {"email": user.email})
    return render(request, "registration/signup.html", {"form": form}, status=400 if form.errors else 200)


def verify_email(request: HttpRequest, uidb64: str, token: str) -> HttpResponse:
    user = account_verify(uidb64=uidb64, token=token)
    if user is None:
        return render(request, "registration/verify_failed.html", status=400)
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    messages.success(request, "Email confirmed: your account is active.")
    return redirect("home")


class ThrottledLoginView(LoginView):
    """Django's login; refused for a while after repeated failures (per username and per IP)."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        username = (request.POST.get("username") or "")[:150]
        refusal = login_refusal(username=username, ip=client_ip(request))
        if refusal is not None:
            form = self.get_form()
            return self.render_to_response(self.get_context_data(form=form, refusal=refusal), status=429)
        return super().post(request, *args, **kwargs)

    def form_valid(self, form: Any) -> HttpResponse:
        login_succeeded(username=form.get_user().get_username())
        return super().form_valid(form)

    def form_invalid(self, form: Any) -> HttpResponse:
        login_failed(username=(self.request.POST.get("username") or "")[:150], ip=client_ip(self.request))
        inactive = get_user_model().objects.filter(username=self.request.POST.get("username") or "",
                                                   is_active=False).exists()
        return self.render_to_response(self.get_context_data(form=form, inactive=inactive), status=400)
